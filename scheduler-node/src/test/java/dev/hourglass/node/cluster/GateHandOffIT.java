package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.InProcessCluster;
import dev.hourglass.node.testing.RunsPaired;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attempts claimed and queued at their service's gate, behind deliveries to a receiver that holds
 * every request, when their shard moves away (a node joins) or their node stops: they are given
 * back unsent at once, so the new owner sends them as the same attempt. Before, they stayed queued:
 * on a join until a slot freed (then given back, racing the new owner's timeout of their
 * claim-time deadline), on a stop for good, and the new owner ended them once the node had left as
 * attempts that used up the job's budget: with {@code maxAttempts: 1}, FAILED without ever
 * reaching the receiver.
 *
 * <p>The scenario had {@code maxInFlight: 2}: with two nodes, that leaves one attempt per
 * node at a gate, and whether its shard is among the third of the shards that move is chance. A
 * limit of 20 queues ten at node 0's gate, so some move in every run.
 */
@RunsPaired
class GateHandOffIT {
    InProcessCluster cluster;
    CallbackReceiver receiver;
    ApiClient app;

    @AfterEach
    void close() throws Exception {
        if (cluster != null) {
            cluster.closeTogether(); // the test is over: its nodes stop at once
        }
        if (receiver != null) {
            receiver.close();
        }
    }

    /** Two nodes, the service {@code held}, and {@code count} jobs due at the returned time. */
    private List<String> twoNodesAndJobsThroughNode0(int count, long holdMs, long timeoutMs) throws Exception {
        receiver = new CallbackReceiver(128);
        receiver.respond(r -> new Reply(200, "", Map.of(), holdMs));
        cluster = InProcessCluster.start(2, (i, c) -> c.dubbo.enabled = false); // HTTP callbacks only
        app = cluster.newApp("shop");
        app.put(
                "/api/v1/services/held",
                "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\",\"maxInFlight\":20,\"timeoutMs\":"
                        + timeoutMs + ",\"maxAttempts\":1}");
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            JsonNode members = cluster.admin().get("/api/v1/cluster").json().get("nodes");
            return members.size() == 2
                    && members.get(0).get("shards").size() == 32
                    && members.get(1).get("shards").size() == 32;
        });
        fireAt = System.currentTimeMillis() + 1_500;
        StringBuilder body = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < count; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"service\":\"held\",\"bizKey\":\"held-")
                    .append(i)
                    .append("\",\"fireAt\":\"")
                    .append(Instant.ofEpochMilli(fireAt))
                    .append("\"}");
        }
        List<String> ids = new ArrayList<>();
        // through node 0: due within its window, so on its shards (10 sending, 10 at the gate)
        for (JsonNode r : app.post("/api/v1/jobs/batch", body.append("]}").toString())
                .json()
                .get("results")) {
            ids.add(r.get("job").get("id").asText());
        }
        assertThat(ids).hasSize(count);
        return ids;
    }

    long fireAt;

    /**
     * Node 0's share of the limit is delivering (10 requests open), so the next 10 claimed wait at
     * its gate: then a moment for those claims, and the test acts.
     */
    private int awaitGateFull() throws InterruptedException {
        await().atMost(Duration.ofSeconds(20)).until(() -> receiver.received().size() >= 10);
        Thread.sleep(300);
        return receiver.received().size();
    }

    /** Every job ends FAILED (maxAttempts 1); none of them without having reached the receiver. */
    private void assertNoneFailedUnsent(List<String> ids, ApiClient via, int openWhenMoved, String what) {
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> ids.stream().allMatch(id -> {
                    String state =
                            via.get("/api/v1/jobs/" + id).json().get("state").asText();
                    return state.equals("FAILED") || state.equals("FINISHED");
                }));
        Set<String> reached = receiver.countsByJob().keySet();
        List<String> endedUnsent =
                ids.stream().filter(id -> !reached.contains(id)).toList();
        System.out.printf(
                "GATE HAND-OFF (%s): %d requests open then, %d of %d jobs reached the receiver, %d ended without"
                        + " reaching it%n",
                what, openWhenMoved, reached.size(), ids.size(), endedUnsent.size());
        for (String id : endedUnsent) {
            System.out.printf(
                    "ENDED UNSENT: %s %s%n",
                    id, via.get("/api/v1/jobs/" + id + "/executions").json());
        }
        assertThat(openWhenMoved).as("the gate was full when the shards moved").isEqualTo(10);
        assertThat(endedUnsent).as("jobs ended that never reached the receiver").isEmpty();
        assertThat(receiver.countsByJob().values()).as("one attempt each").allMatch(c -> c == 1);
    }

    @Test
    void noJobFailsWithoutReachingItsReceiverWhenItsShardMovesWhileItWaitsAtTheGate() throws Exception {
        List<String> ids = twoNodesAndJobsThroughNode0(80, 10_000, 3_000); // held past the timeout
        int open = awaitGateFull();
        NodeConfig third = cluster.config();
        third.dubbo.enabled = false;
        cluster.start(third, Clock.systemUTC()); // a third node: a third of the shards move
        assertNoneFailedUnsent(ids, app, open, "a node joined");
    }

    @Test
    void noJobFailsWithoutReachingItsReceiverWhenItsNodeStopsWhileItWaitsAtTheGate() throws Exception {
        // held for 5 s, past node 0's stop grace (2 s): the deliveries under way end as TIMEOUTs
        // (they reached the receiver); those at the gate must be given back, not left RUNNING
        List<String> ids = twoNodesAndJobsThroughNode0(40, 5_000, 30_000);
        int open = awaitGateFull();
        // a reply's delay is set when its request arrives: the 10 open requests stay held past the
        // grace, and node 1's deliveries after the hand-off are answered at once (nothing times them)
        receiver.respond(r -> Reply.ok());
        ApiClient onNode1 = new ApiClient(cluster.nodes().get(1).baseUrl(), app.token());
        cluster.nodes().get(0).close();
        assertNoneFailedUnsent(ids, onNode1, open, "its node stopped");
    }
}
