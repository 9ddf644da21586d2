package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.JobRows;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.node.testing.ProcessCluster;
import dev.hourglass.node.testing.TestNodes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A rolling deploy's stop, from outside: two node processes, jobs submitted through node a (so on
 * a's shards), a receiver that takes seconds to answer, and SIGTERM to a while its requests are
 * open. a finishes the deliveries under way and writes their results before it leaves the
 * cluster, so b, which takes a's shards, sends none of them again. A receiver slower than the
 * stop's grace gets the job again (at-least-once), and the execution log says why.
 */
class GracefulStopIT {
    TestingServer zookeeper;
    CallbackReceiver receiver;
    String jdbcUrl;
    final List<NodeProcess> nodes = new CopyOnWriteArrayList<>();
    ApiClient app;
    ApiClient onB;

    @BeforeEach
    void start() throws Exception {
        zookeeper = new TestingServer(true);
        receiver = new CallbackReceiver(400); // every request of the burst open at once
        jdbcUrl = EmbeddedMariaDb.newDatabase();
    }

    @AfterEach
    void stop() throws Exception {
        ProcessCluster.stop(nodes, receiver, zookeeper);
    }

    private NodeProcess startNode(String id, long graceMs) throws Exception {
        NodeProcess n = NodeProcess.start(
                id,
                jdbcUrl,
                zookeeper.getConnectString(),
                "/hg-graceful-stop",
                "  zkSessionTimeoutMs: 5000\nengine:\n  shutdownGraceMs: " + graceMs,
                false); // Dubbo off: these jobs are HTTP callbacks
        nodes.add(n);
        return n;
    }

    /** Nodes a and b, balanced, and an app with an HTTP service to the receiver. */
    private NodeProcess twoNodes(long graceOfA, String serviceJson) throws Exception {
        NodeProcess a = startNode("a", graceOfA);
        NodeProcess b = startNode("b", 10_000); // both JVMs start at once: a second sooner
        a.awaitReady();
        b.awaitReady();
        ApiClient admin = new ApiClient(a.baseUrl(), TestNodes.ADMIN_TOKEN);
        String token = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText();
        app = admin.as(token);
        onB = new ApiClient(b.baseUrl(), token);
        app.put("/api/v1/services/slow", serviceJson.replace("URL", receiver.url()));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> shardsOf(a).size() == 32 && shardsOf(b).size() == 32);
        return a;
    }

    private Set<Integer> shardsOf(NodeProcess n) {
        JsonNode view = new ApiClient(n.baseUrl(), TestNodes.ADMIN_TOKEN)
                .get("/api/v1/cluster")
                .json();
        Set<Integer> out = new HashSet<>();
        for (JsonNode member : view.get("nodes")) {
            if (member.get("id").asText().equals(n.nodeId())) {
                member.get("shards").forEach(s -> out.add(s.asInt()));
            }
        }
        return out;
    }

    /** {@code count} jobs through a, due from {@code firstAt} spread over {@code spreadMs}. */
    private List<JsonNode> submitThroughA(int count, long firstAt, long spreadMs) {
        StringBuilder body = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < count; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"service\":\"slow\",\"bizKey\":\"order-")
                    .append(i)
                    .append("\",\"fireAt\":\"")
                    .append(Instant.ofEpochMilli(firstAt + i * spreadMs / count))
                    .append("\"}");
        }
        List<JsonNode> jobs = new ArrayList<>();
        for (JsonNode r : app.post("/api/v1/jobs/batch", body.append("]}").toString())
                .json()
                .get("results")) {
            jobs.add(r.get("job"));
        }
        assertThat(jobs).hasSize(count).doesNotContainNull();
        return jobs;
    }

    private static void sleepUntil(long epochMs) throws InterruptedException {
        long left = epochMs - System.currentTimeMillis();
        if (left > 0) {
            Thread.sleep(left);
        }
    }

    /** Polls the jobs' rows in the database: 300 requests per poll loaded the node that finishes them. */
    private void awaitAllFinished(List<JsonNode> jobs, Duration within) {
        List<String> ids = jobs.stream().map(j -> j.get("id").asText()).toList();
        await().atMost(within)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> JobRows.notFinished(jdbcUrl, ids), List::isEmpty);
    }

    private void assertNoAttemptTwiceAndNoneEarly(List<JsonNode> jobs) {
        Map<String, JsonNode> byId = new java.util.HashMap<>();
        jobs.forEach(j -> byId.put(j.get("id").asText(), j));
        Set<String> attempts = new HashSet<>();
        for (Received r : receiver.received()) {
            assertThat(attempts.add(r.jobId() + "#" + r.attempt()))
                    .as("job %s attempt %d delivered twice", r.jobId(), r.attempt())
                    .isTrue();
            assertThat(r.at())
                    .isGreaterThanOrEqualTo(
                            NodeFixture.epochMs(byId.get(r.jobId()).get("fireAt")));
        }
    }

    @Test
    void aStoppingNodeFinishesItsDeliveriesUnderWayAndNoJobIsDeliveredTwice() throws Exception {
        NodeProcess a = twoNodes(10_000, "{\"protocol\":\"HTTP\",\"url\":\"URL\",\"timeoutMs\":30000}");
        receiver.respond(r -> new Reply(200, "", Map.of(), 3_000));
        long firstAt = System.currentTimeMillis() + 3_000;
        List<JsonNode> jobs = submitThroughA(300, firstAt, 1_000);
        Set<Integer> aShards = shardsOf(a);
        assertThat(jobs)
                .as("due within a's window: on a's shards")
                .allMatch(j -> aShards.contains(j.get("shard").asInt()));

        sleepUntil(firstAt + 1_500);
        int openWhenStopped = receiver.received().size();
        Duration took = a.terminateWithin(Duration.ofSeconds(30));
        nodes.remove(a);

        awaitAllFinished(jobs, Duration.ofSeconds(60));
        System.out.printf(
                "GRACEFUL STOP: %d requests open at SIGTERM, a exited after %d ms%n", openWhenStopped, took.toMillis());
        assertThat(openWhenStopped)
                .as("the stop came while deliveries were under way")
                .isGreaterThan(100);
        assertNoAttemptTwiceAndNoneEarly(jobs);
        assertThat(receiver.countsByJob()).hasSize(300).allSatisfy((job, count) -> assertThat(count)
                .as("deliveries of job %s", job)
                .isEqualTo(1));
        Map<String, Map<Integer, JobRows.Execution>> logs = JobRows.executions(
                jdbcUrl, jobs.stream().map(j -> j.get("id").asText()).toList());
        for (JsonNode job : jobs) {
            Map<Integer, JobRows.Execution> executions =
                    logs.getOrDefault(job.get("id").asText(), Map.of());
            assertThat(executions).as("job %s: %s", job.get("id"), executions).hasSize(1);
            assertThat(executions.get(1).outcome()).isEqualTo("SUCCESS");
            assertThat(executions.get(1).node()).isEqualTo("a");
        }
        assertThat(took.toMillis())
                .as("a waits for its deliveries (the last answered ~2.5 s after SIGTERM), not its whole grace")
                .isLessThan(10_000);
    }

    @Test
    void aReceiverSlowerThanTheGraceGetsTheJobAgainAndTheLogSaysWhy() throws Exception {
        NodeProcess a = twoNodes(
                2_000,
                "{\"protocol\":\"HTTP\",\"url\":\"URL\",\"timeoutMs\":30000,"
                        + "\"backoff\":{\"initialMs\":1000,\"multiplier\":1.0,\"maxMs\":1000}}");
        // the first attempt is held longer than a's grace; later ones are answered at once
        receiver.respond(r -> r.attempt() == 1 ? new Reply(200, "", Map.of(), 8_000) : Reply.ok());
        long firstAt = System.currentTimeMillis() + 3_000;
        List<JsonNode> jobs = submitThroughA(50, firstAt, 500);

        sleepUntil(firstAt + 1_000);
        Duration took = a.terminateWithin(Duration.ofSeconds(30));
        nodes.remove(a);
        long stoppedAt = System.currentTimeMillis();

        awaitAllFinished(jobs, Duration.ofSeconds(60));
        System.out.printf("GRACE RAN OUT: a exited after %d ms%n", took.toMillis());
        assertNoAttemptTwiceAndNoneEarly(jobs);
        for (JsonNode job : jobs) {
            String id = job.get("id").asText();
            JsonNode executions =
                    onB.get("/api/v1/jobs/" + id + "/executions").json().get("items");
            assertThat(executions).as("job %s: %s", id, executions).hasSize(2);
            JsonNode first = executions.get(0);
            assertThat(first.get("outcome").asText()).isEqualTo("TIMEOUT");
            assertThat(first.get("node").asText()).isEqualTo("a");
            assertThat(first.get("message").asText()).contains("no answer before node a stopped");
            assertThat(executions.get(1).get("outcome").asText()).isEqualTo("SUCCESS");
            assertThat(executions.get(1).get("node").asText()).isEqualTo("b");
            List<Received> got = receiver.receivedFor(id);
            assertThat(got).extracting(Received::attempt).containsExactly(1, 2);
            assertThat(got.get(1).at())
                    .as("attempt 2 only after a stopped, with the service's backoff")
                    .isGreaterThanOrEqualTo(stoppedAt - took.toMillis() + 2_000);
        }
        assertThat(took.toMillis())
                .as("within the grace and the documented bound beyond it")
                .isLessThanOrEqualTo(2_000 + 5_000);
    }
}
