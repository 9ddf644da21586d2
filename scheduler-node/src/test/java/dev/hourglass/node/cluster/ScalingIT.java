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
import dev.hourglass.node.testing.StallWatch;
import dev.hourglass.node.testing.TestNodes;
import dev.hourglass.node.testing.Together;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Node processes joining and leaving while jobs fire: scale 1 -> 3, and a rolling restart of every
 * node. A steady stream of submits (to whichever node answers, as a client with several addresses
 * would) runs throughout; every acknowledged job must be delivered, none twice, none early.
 *
 * <p>The two tests share their cluster: the rolling restart restarts the three nodes the scale-up
 * left (run alone, it starts them first). Each test has its own service, receiver and load.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScalingIT {
    TestingServer zookeeper;
    CallbackReceiver receiver;
    String jdbcUrl;
    final List<NodeProcess> nodes = new CopyOnWriteArrayList<>();
    final Map<String, JsonNode> acknowledged = new ConcurrentHashMap<>();
    String token;
    /** The test's service, delivering to its {@link #receiver}. */
    String service;

    int tests;
    int started;
    /** The test's load, stopped by the test or, if it failed first, before the next one. */
    final AtomicBoolean running = new AtomicBoolean();

    Thread load;
    /** What the machine stole from this JVM meanwhile: the receiver's timestamps suffer it too. */
    StallWatch stalls;

    @BeforeAll
    void startCluster() throws Exception {
        zookeeper = new TestingServer(true);
        jdbcUrl = EmbeddedMariaDb.newDatabase();
        startNode();
        ApiClient admin = new ApiClient(nodes.get(0).baseUrl(), TestNodes.ADMIN_TOKEN);
        token = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText();
    }

    @BeforeEach
    void newServiceAndReceiver() throws Exception {
        stalls = new StallWatch();
        receiver = new CallbackReceiver();
        acknowledged.clear();
        service = "steady-" + ++tests;
        new ApiClient(nodes.get(0).baseUrl(), token)
                .put("/api/v1/services/" + service, "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}");
    }

    /** A node started and listed at once (so the teardown stops it whatever happens), then ready. */
    private NodeProcess startNode() throws Exception {
        NodeProcess n = launchNode();
        nodes.add(n);
        return n.awaitReady();
    }

    /** A node process started; {@link NodeProcess#awaitReady()} waits for it. */
    private NodeProcess launchNode() throws Exception {
        // Dubbo off: the jobs are HTTP callbacks, and Dubbo's start was a second or two of CPU in each
        // of the test's nine starts, taken from the nodes firing beside it
        return NodeProcess.start(
                "s" + started++,
                jdbcUrl,
                zookeeper.getConnectString(),
                "/hg-scaling",
                "  zkSessionTimeoutMs: 5000",
                false);
    }

    @AfterEach
    void stopLoadAndCloseReceiver() throws InterruptedException {
        try {
            stopLoad();
        } finally {
            receiver.close();
            stalls.close();
        }
    }

    private void startLoad() {
        running.set(true);
        load = steadyLoad(running);
    }

    private void stopLoad() throws InterruptedException {
        running.set(false);
        if (load != null) {
            load.join();
            load = null;
        }
    }

    @AfterAll
    void stop() throws Exception {
        try {
            Together.close(nodes); // the tests are over: all at once
        } finally {
            if (zookeeper != null) {
                zookeeper.close();
            }
            ZooKeeperLeftovers.delete();
        }
    }

    /** Submits ~50 jobs a second, each due 1-2 s later, to the first node that acknowledges it. */
    private Thread steadyLoad(AtomicBoolean running) {
        Thread t = new Thread(() -> {
            int i = 0;
            while (running.get() && i < 5_000) {
                String body = "{\"service\":\"" + service + "\",\"delayMs\":" + (1_000 + (i % 10) * 100) + "}";
                for (int k = 0; k < nodes.size() * 2; k++) {
                    NodeProcess n = nodes.get((i + k) % nodes.size());
                    try {
                        ApiClient.Answer a = new ApiClient(n.baseUrl(), token).post("/api/v1/jobs", body);
                        if (a.status() == 201) {
                            acknowledged.put(a.json().get("id").asText(), a.json());
                            break;
                        }
                    } catch (RuntimeException down) {
                        // that node is stopping: the client tries another
                    }
                }
                i++;
                try {
                    Thread.sleep(20); // the load's own pace, not a wait for a result
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        t.start();
        return t;
    }

    private Map<String, Integer> shardCounts() {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        JsonNode view = new ApiClient(nodes.get(0).baseUrl(), TestNodes.ADMIN_TOKEN)
                .get("/api/v1/cluster")
                .json();
        for (JsonNode n : view.get("nodes")) {
            counts.put(n.get("id").asText(), n.get("shards").size());
        }
        return counts;
    }

    private boolean balanced(int members) {
        Map<String, Integer> counts = shardCounts();
        int min = counts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
        int max = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        return counts.size() == members
                && counts.values().stream().mapToInt(Integer::intValue).sum() == 64
                && max - min <= 1;
    }

    private void assertEveryAcknowledgedJobDeliveredOnce() {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> receiver.countsByJob().keySet().containsAll(acknowledged.keySet()));
        Set<String> attempts = new HashSet<>();
        for (Received r : receiver.received()) {
            assertThat(attempts.add(r.jobId() + "#" + r.attempt()))
                    .as("attempt delivered twice")
                    .isTrue();
            JsonNode job = acknowledged.get(r.jobId());
            if (job != null) {
                assertThat(r.at()).isGreaterThanOrEqualTo(NodeFixture.epochMs(job.get("fireAt")));
            }
        }
        assertThat(receiver.countsByJob().values()).as("no job delivered twice").allMatch(c -> c == 1);
        long worst = 0;
        for (JsonNode job : acknowledged.values()) {
            long late =
                    receiver.receivedFor(job.get("id").asText()).get(0).at() - NodeFixture.epochMs(job.get("fireAt"));
            worst = Math.max(worst, late);
            if (late > 1_000) {
                describeLateJob(job, late);
            }
        }
        System.out.printf("HANDOFF: %d jobs, worst lateness %d ms, %s%n", acknowledged.size(), worst, stalls);
        // a hand-off leaves no owner-less window of seconds (this machine's 2 cores are shared by
        // up to four node processes starting and warming up; measured: 515 ms and 551 ms, the
        // worst of them the first deliveries of a node started a moment before). Before the
        // previous owner gave back its claimed, unsent attempts at once and the new one read its
        // gained shards again 300 ms and 1 s later, such a job waited for a catch-up sweep: 2-6 s
        // in CI runs.
        assertThat(worst)
                .as("worst lateness across joins and leaves; %s", stalls)
                .isLessThan(2_000 + stalls.longestStallMs());
    }

    /** What a failure needs to be understood: the late job's attempts, as the store recorded them. */
    private void describeLateJob(JsonNode job, long lateMs) {
        String id = job.get("id").asText();
        JsonNode executions = new ApiClient(nodes.get(0).baseUrl(), TestNodes.ADMIN_TOKEN)
                .get("/api/v1/jobs/" + id + "/executions")
                .json();
        System.out.printf(
                "LATE by %d ms: job %s (shard %s) acknowledged as %s; received %s; executions %s%n",
                lateMs, id, job.path("shard"), job, receiver.receivedFor(id), executions);
    }

    @Test
    @Order(1)
    void scalingFromOneToThreeNodesWhileJobsFire() throws Exception {
        assertThat(nodes)
                .as("the scale-up starts from the class's first node alone")
                .hasSize(1);
        startLoad();
        await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.size() > 100);
        startNode();
        System.out.printf("SCALE: s1 ready at %d%n", System.currentTimeMillis());
        await().atMost(Duration.ofSeconds(20)).until(() -> balanced(2));
        startNode();
        System.out.printf("SCALE: s2 ready at %d%n", System.currentTimeMillis());
        await().atMost(Duration.ofSeconds(20)).until(() -> balanced(3));
        // jobs go on being accepted by the cluster of three: 100 more at least, and 600 in all for
        // the check below; the load's pace is the machine's (three node JVMs warming up on two
        // cores slowed it to under 600 in the 10 s once allowed here, in CI on 2026-11-29)
        int atBalance = acknowledged.size();
        await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() > Math.max(600, atBalance + 100));
        stopLoad();
        assertThat(shardCounts().values()).allMatch(c -> c == 21 || c == 22);
        assertEveryAcknowledgedJobDeliveredOnce();
    }

    @Test
    @Order(2)
    void aRollingRestartOfEveryNodeUnderSteadyLoadLosesNothing() throws Exception {
        // the cluster of three the restart starts from: the scale-up's, or, run alone, the missing
        // nodes started together (listed at once, so that the teardown stops them whatever happens)
        List<NodeProcess> launched = new ArrayList<>();
        while (nodes.size() < 3) {
            NodeProcess n = launchNode();
            nodes.add(n);
            launched.add(n);
        }
        for (NodeProcess n : launched) {
            n.awaitReady();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> balanced(3));
        startLoad();
        for (int i = 0; i < 3; i++) {
            NodeProcess old = nodes.get(0);
            startNode(); // the replacement first, so the cluster never runs short
            nodes.remove(old);
            long closing = System.currentTimeMillis();
            old.close(); // SIGTERM: graceful, leaves the group, finishes its deliveries
            System.out.printf(
                    "ROLL: %s stopped %d..%d ms (epoch)%n", old.nodeId(), closing, System.currentTimeMillis());
            await().atMost(Duration.ofSeconds(20)).until(() -> balanced(3));
            System.out.printf("ROLL: balanced at %d%n", System.currentTimeMillis());
        }
        stopLoad();
        assertThat(acknowledged).hasSizeGreaterThan(200);
        assertEveryAcknowledgedJobDeliveredOnce();
    }
}
