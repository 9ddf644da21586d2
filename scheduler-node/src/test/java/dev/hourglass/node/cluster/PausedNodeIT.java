package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.node.testing.ProcessCluster;
import dev.hourglass.node.testing.TestNodes;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node frozen (SIGSTOP) past its ZooKeeper session timeout while its jobs come due, then thawed:
 * its shards fire on the other node meanwhile, and when it wakes with its stale memory it cannot
 * fire what the other node fired — no job, no attempt, delivered twice (SPEC §2, guarantee 5).
 */
class PausedNodeIT {
    static final int SESSION_TIMEOUT_MS = 4_000;

    TestingServer zookeeper;
    CallbackReceiver receiver;
    NodeProcess a;
    NodeProcess b;

    @BeforeEach
    void start() throws Exception {
        zookeeper = new TestingServer(true);
        receiver = new CallbackReceiver();
        String jdbcUrl = EmbeddedMariaDb.newDatabase();
        String extra = "  zkSessionTimeoutMs: " + SESSION_TIMEOUT_MS;
        a = NodeProcess.start("pa", jdbcUrl, zookeeper.getConnectString(), "/hg-pause", extra);
        b = NodeProcess.start("pb", jdbcUrl, zookeeper.getConnectString(), "/hg-pause", extra);
        a.awaitReady();
        b.awaitReady();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            b.resume(); // a frozen process would not stop
        } finally {
            ProcessCluster.stop(java.util.List.of(a, b), receiver, zookeeper);
        }
    }

    @Test
    void aFrozenNodeLosesItsShardsAndOnWakingFiresNothingTwice() throws Exception {
        ApiClient admin = new ApiClient(a.baseUrl(), TestNodes.ADMIN_TOKEN);
        String token = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText();
        admin.as(token).put("/api/v1/services/s", "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> admin.get("/api/v1/cluster").json().get("nodes").size() == 2
                        && admin.get("/api/v1/cluster")
                                        .json()
                                        .get("nodes")
                                        .get(0)
                                        .get("shards")
                                        .size()
                                == 32);

        // 1,000 jobs due 5-9 s from now, half through each node (so half in each node's memory), in
        // one batch per node: 1,000 single submits took long enough on a busy CI machine that the
        // jobs were already due, and b was frozen in the middle of a claim (see the note below)
        long first = System.currentTimeMillis() + 5_000;
        Map<String, JsonNode> jobs = new HashMap<>();
        for (NodeProcess via : List.of(a, b)) {
            StringBuilder batch = new StringBuilder("{\"jobs\":[");
            for (int i = via == a ? 0 : 1; i < 1_000; i += 2) {
                batch.append(batch.length() > 9 ? "," : "")
                        .append("{\"service\":\"s\",\"fireAt\":")
                        .append(first + i * 4L)
                        .append('}');
            }
            for (JsonNode item : new ApiClient(via.baseUrl(), token)
                    .post("/api/v1/jobs/batch", batch.append("]}").toString())
                    .json()
                    .get("results")) {
                jobs.put(item.get("job").get("id").asText(), item.get("job"));
            }
        }
        assertThat(jobs).hasSize(1_000);
        assertThat(System.currentTimeMillis())
                .as("b is frozen before its jobs are due (a node frozen inside a claim transaction keeps"
                        + " its row locks for 20 s, until MariaDB ends the idle transaction: IdleTransactionIT's"
                        + " subject, not this test's)")
                .isLessThan(first - 1_000);
        await().atMost(Duration.ofSeconds(10)).until(() -> System.currentTimeMillis() >= first - 1_000);
        b.pause(); // frozen with its jobs in memory, before they are due
        long frozenAt = System.currentTimeMillis();
        // a takes b's shards once b's session expires, and fires b's jobs
        await().atMost(Duration.ofSeconds(30))
                .until(() -> admin.get("/api/v1/cluster").json().get("nodes").size() == 1);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> receiver.countsByJob().size() >= 900);
        b.resume();
        long thawedAt = System.currentTimeMillis();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> receiver.countsByJob().keySet().containsAll(jobs.keySet()));
        // give the thawed node time to act on what it still holds in memory
        await().atMost(Duration.ofSeconds(30)).until(() -> System.currentTimeMillis() > thawedAt + 5_000);

        Set<String> attempts = new HashSet<>();
        Map<String, Integer> highestSoFar = new HashMap<>();
        int superseded = 0;
        List<Received> inArrivalOrder = new java.util.ArrayList<>(receiver.received());
        inArrivalOrder.sort(java.util.Comparator.comparingLong(Received::at));
        for (Received r : inArrivalOrder) {
            assertThat(attempts.add(r.jobId() + "#" + r.attempt()))
                    .as("an attempt delivered twice")
                    .isTrue();
            assertThat(r.at())
                    .isGreaterThanOrEqualTo(
                            NodeFixture.epochMs(jobs.get(r.jobId()).get("fireAt")));
            Integer newer = highestSoFar.merge(r.jobId(), r.attempt(), Math::max);
            if (newer > r.attempt()) {
                superseded++; // sent after a newer attempt of its job had gone out
                System.out.printf(
                        "SUPERSEDED: job %s attempt %d arrived at %d (b frozen %d..%d); received %s; executions %s%n",
                        r.jobId(),
                        r.attempt(),
                        r.at(),
                        frozenAt,
                        thawedAt,
                        receiver.receivedFor(r.jobId()),
                        admin.get("/api/v1/jobs/" + r.jobId() + "/executions").json());
            }
        }
        long redelivered =
                receiver.countsByJob().values().stream().filter(c -> c > 1).count();
        // the thawed node's stale attempts are fenced: none goes out after its job's newer attempt
        assertThat(superseded).as("late deliveries of superseded attempts").isZero();
        // b rejoined (a new session once its old one expired: how soon is the machine's pace)
        await().atMost(Duration.ofSeconds(30))
                .until(() -> admin.get("/api/v1/cluster").json().get("nodes").size() == 2);
        System.out.printf(
                "PAUSE: frozen %d ms, jobs %d, deliveries %d, jobs delivered twice %d%n",
                thawedAt - frozenAt, jobs.size(), receiver.received().size(), redelivered);
    }
}
