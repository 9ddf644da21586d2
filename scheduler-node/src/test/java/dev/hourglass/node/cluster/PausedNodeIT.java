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
import dev.hourglass.node.testing.TestKafka;
import dev.hourglass.node.testing.TestNodes;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node frozen (SIGSTOP) past its ZooKeeper session timeout while its jobs come due, then thawed:
 * its shards fire on the other node meanwhile, and when it wakes with its stale memory it cannot
 * fire what the other node fired — no job, no attempt, delivered twice (docs/cluster.md,
 * "Guarantees"). Over HTTP, and over Kafka with the node frozen while its records wait for the
 * metadata of a topic not yet created: on waking it must not hand them to the producer.
 */
class PausedNodeIT {
    static final int SESSION_TIMEOUT_MS = 4_000;
    static KafkaClusterTestKit kafka;

    /**
     * One cluster for both scenarios: its start (ZooKeeper, two node processes) and stop took a
     * third of each scenario's time. Each scenario has an app of its own (its service, its jobs,
     * and for HTTP its own receiver) and starts, as on a fresh cluster, once both nodes hold half
     * the shards ({@link #appWithService}): after the other scenario b has woken and joined again
     * under a new session, as a node does in production.
     */
    static TestingServer zookeeper;

    static NodeProcess a;
    static NodeProcess b;

    @BeforeAll
    static void start() throws Exception {
        kafka = TestKafka.start();
        zookeeper = new TestingServer(true);
        String jdbcUrl = EmbeddedMariaDb.newDatabase();
        String extra = "  zkSessionTimeoutMs: " + SESSION_TIMEOUT_MS + "\n  kafkaBootstrap: \""
                + kafka.bootstrapServers() + "\"";
        // Dubbo off: HTTP and KAFKA services only, and both JVMs start at once on two cores
        a = NodeProcess.start("pa", jdbcUrl, zookeeper.getConnectString(), "/hg-pause", extra, false);
        b = NodeProcess.start("pb", jdbcUrl, zookeeper.getConnectString(), "/hg-pause", extra, false);
        a.awaitReady();
        b.awaitReady();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (b != null) {
                b.resume(); // a frozen process would not stop
            }
            // both at once (SIGTERM, then each waits for its own exit): one after the other took twice as long
            Thread stopA = new Thread(() -> closeQuietly(a));
            stopA.start();
            closeQuietly(b);
            stopA.join();
        } finally {
            try {
                if (zookeeper != null) {
                    zookeeper.close();
                }
                ZooKeeperLeftovers.delete();
            } finally {
                if (kafka != null) {
                    kafka.close();
                }
            }
        }
    }

    private static void closeQuietly(NodeProcess n) {
        if (n == null) {
            return;
        }
        try {
            n.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    CallbackReceiver receiver;

    @BeforeEach
    void receiver() throws Exception {
        receiver = new CallbackReceiver();
    }

    @AfterEach
    void thaw() throws Exception {
        try {
            b.resume(); // a scenario that failed while b was frozen: the next one needs it awake
        } finally {
            receiver.close();
        }
    }

    /**
     * An app named {@code app} with a service ({@code serviceJson}), once both nodes hold half the
     * shards.
     */
    private ApiClient appWithService(String app, String serviceJson) {
        ApiClient admin = new ApiClient(a.baseUrl(), TestNodes.ADMIN_TOKEN);
        String token = admin.post("/api/v1/apps", "{\"name\":\"" + app + "\"}")
                .json()
                .get("token")
                .asText();
        admin.put("/api/v1/apps/" + app + "/targets", "{\"kafkaTopics\":[\"paused.orders\"]}");
        assertThat(admin.as(token).put("/api/v1/services/s", serviceJson).status())
                .isBetween(200, 201);
        ProcessCluster.awaitTwoNodesSharingTheShards(admin);
        return admin.as(token);
    }

    /**
     * 1,000 jobs due from {@code first} over 4 s, half through each node (so half in each node's
     * memory), in one batch per node: 1,000 single submits took long enough on a busy CI machine
     * that the jobs were already due, and b was frozen in the middle of a claim (see below).
     */
    private Map<String, JsonNode> submitHalfThroughEach(String token, long first) {
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
        return jobs;
    }

    @Test
    void aFrozenNodeLosesItsShardsAndOnWakingFiresNothingTwice() throws Exception {
        ApiClient app = appWithService("shop", "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}");
        ApiClient admin = app.as(TestNodes.ADMIN_TOKEN);
        long first = System.currentTimeMillis()
                + 3_500; // two batches of 500 take well under a second: the check below guards it
        Map<String, JsonNode> jobs = submitHalfThroughEach(app.token(), first);
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

    @Test
    void aNodeFrozenWhileItsRecordsWaitForTheProducerHandsNoneOverOnWaking() throws Exception {
        // the topic does not exist yet: each node's first records wait beside the producer for its
        // metadata (up to 2 s), and b is frozen while they do
        ApiClient app = appWithService("shop-kafka", "{\"protocol\":\"KAFKA\",\"topic\":\"paused.orders\"}");
        ApiClient admin = app.as(TestNodes.ADMIN_TOKEN);
        long first = System.currentTimeMillis() + 3_500;
        Map<String, JsonNode> jobs = submitHalfThroughEach(app.token(), first);
        await().atMost(Duration.ofSeconds(10)).until(() -> System.currentTimeMillis() >= first + 300);
        b.pause();
        long frozenAt = System.currentTimeMillis();
        TestKafka.createTopic(kafka, "paused.orders", 3);
        Map<String, List<Integer>> attemptsByJob = new HashMap<>(); // in topic order: one key, one partition
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("paused.orders")) {
            // a takes b's shards once b's session expires, and fires b's jobs
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                poll(consumer, attemptsByJob);
                return attemptsByJob.size() >= 900;
            });
            b.resume();
            long thawedAt = System.currentTimeMillis();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                poll(consumer, attemptsByJob);
                return attemptsByJob.keySet().containsAll(jobs.keySet())
                        && System.currentTimeMillis() > thawedAt + 5_000;
            });
            System.out.printf(
                    "PAUSE (Kafka): frozen %d ms, jobs %d, records %d, jobs with more than one record %d%n",
                    thawedAt - frozenAt,
                    jobs.size(),
                    attemptsByJob.values().stream().mapToInt(List::size).sum(),
                    attemptsByJob.values().stream().filter(l -> l.size() > 1).count());
        }
        attemptsByJob.forEach((job, attempts) -> {
            for (int i = 1; i < attempts.size(); i++) {
                assertThat(attempts.get(i))
                        .as(
                                "job %s: hourglass-attempt on the topic, in order %s; executions %s",
                                job,
                                attempts,
                                admin.get("/api/v1/jobs/" + job + "/executions").json())
                        .isGreaterThan(attempts.get(i - 1));
            }
        });
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String topic) {
        return TestKafka.consumer(kafka, topic);
    }

    private static void poll(KafkaConsumer<byte[], byte[]> consumer, Map<String, List<Integer>> attemptsByJob) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            attemptsByJob
                    .computeIfAbsent(header(r, "hourglass-job-id"), k -> new java.util.ArrayList<>())
                    .add(Integer.parseInt(header(r, "hourglass-attempt")));
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
