package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.InProcessCluster;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsPaired;
import dev.hourglass.node.testing.StallWatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One service's backlog does not hold back another service's jobs, and a service's maxInFlight
 * holds across the cluster. Three nodes on two shards, so one node owns none: jobs it takes are
 * found by their owners' catch-up sweeps, which used to read only the earliest due rows — thousands
 * of overdue jobs of a receiver that never answers, parked in memory, filled every sweep.
 */
@RunsPaired // its lateness bound is 1.5 s plus the stalls it measures; 21% of two cores alone
class CatchUpFairnessIT {
    InProcessCluster cluster;
    CallbackReceiver dead;
    CallbackReceiver healthy;
    List<HourglassNode> nodes;
    StallWatch stalls;

    @BeforeEach
    void start() throws Exception {
        dead = new CallbackReceiver();
        healthy = new CallbackReceiver();
        dead.respond(r -> new Reply(200, "", Map.of(), 120_000)); // never answers in time
        cluster = InProcessCluster.start(3, (i, c) -> {
            c.cluster.shards = 2;
            c.dubbo.enabled = false; // HTTP only
        });
        nodes = cluster.nodes();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            cluster.close();
        } finally {
            dead.close();
            healthy.close();
            if (stalls != null) {
                stalls.close();
            }
        }
    }

    @Test
    void aDeadReceiversBacklogDoesNotDelayAnotherServicesJobs() throws Exception {
        ApiClient admin = cluster.admin();
        String token = cluster.newApp("shop").token();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            JsonNode n = admin.get("/api/v1/cluster").json().get("nodes");
            int owners = 0;
            for (JsonNode node : n) {
                owners += node.get("shards").size() > 0 ? 1 : 0;
            }
            return n.size() == 3 && owners == 2;
        });
        String idle = null;
        for (JsonNode node : admin.get("/api/v1/cluster").json().get("nodes")) {
            if (node.get("shards").isEmpty()) {
                idle = node.get("id").asText();
            }
        }
        HourglassNode shardless = null;
        for (HourglassNode n : nodes) {
            if (n.nodeId().equals(idle)) {
                shardless = n;
            }
        }
        ApiClient viaIdle = new ApiClient(shardless.baseUrl(), token);
        viaIdle.put(
                "/api/v1/services/stuck",
                "{\"protocol\":\"HTTP\",\"url\":\"" + dead.url() + "\",\"maxInFlight\":5,\"timeoutMs\":60000}");
        viaIdle.put("/api/v1/services/fine", "{\"protocol\":\"HTTP\",\"url\":\"" + healthy.url() + "\"}");

        long stuckAt = System.currentTimeMillis() + 2_000;
        for (int batch = 0; batch < 5; batch++) {
            StringBuilder body = new StringBuilder("{\"jobs\":[");
            for (int i = 0; i < 1_000; i++) {
                body.append(i == 0 ? "" : ",")
                        .append("{\"service\":\"stuck\",\"fireAt\":")
                        .append(stuckAt)
                        .append('}');
            }
            assertThat(viaIdle.post("/api/v1/jobs/batch", body.append("]}").toString())
                            .status())
                    .isEqualTo(200);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> System.currentTimeMillis() > stuckAt + 1_000);

        // one batch, due 3 s ahead: 200 submits one by one could take much of the lead time
        long fineAt = System.currentTimeMillis() + 3_000;
        StringBuilder fineBatch = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < 200; i++) {
            fineBatch
                    .append(i == 0 ? "" : ",")
                    .append("{\"service\":\"fine\",\"fireAt\":")
                    .append(fineAt)
                    .append('}');
        }
        List<JsonNode> fine = new ArrayList<>();
        viaIdle.post("/api/v1/jobs/batch", fineBatch.append("]}").toString())
                .json()
                .get("results")
                .forEach(r -> fine.add(r.get("job")));
        assertThat(fine).hasSize(200);
        stalls = new StallWatch();
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> fine.stream()
                    .allMatch(j -> !healthy.receivedFor(j.get("id").asText()).isEmpty()));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            long missing = fine.stream()
                    .filter(j -> healthy.receivedFor(j.get("id").asText()).isEmpty())
                    .count();
            throw new AssertionError(missing + " of 200 jobs of the healthy service never arrived", e);
        }
        long worst = 0;
        for (JsonNode j : fine) {
            Received r = healthy.receivedFor(j.get("id").asText()).get(0);
            worst = Math.max(worst, r.at() - NodeFixture.epochMs(j.get("fireAt")));
        }
        System.out.printf(
                "FAIRNESS: healthy service's jobs at most %d ms late behind 5000 stuck ones, %s%n", worst, stalls);
        // found by the next catch-up sweep (500 ms here) at the latest; before the fix, not at all
        assertThat(worst)
                .as("lateness of the healthy service's jobs; %s", stalls)
                .isLessThan(1_500 + stalls.longestStallMs());
        assertThat(dead.maxConcurrent())
                .as("maxInFlight 5 holds across the two nodes that own the stuck jobs")
                .isLessThanOrEqualTo(5)
                .isGreaterThanOrEqualTo(2);
    }
}
