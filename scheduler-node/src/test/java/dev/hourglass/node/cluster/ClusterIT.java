package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.StallWatch;
import dev.hourglass.node.testing.TestNodes;
import dev.hourglass.node.testing.Together;
import dev.hourglass.node.testing.Windows;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Several nodes in one JVM sharing one MariaDB and one real ZooKeeper (in process): the master
 * balances the shards, every job is delivered exactly once whichever node received it, and a node
 * that leaves hands its shards over without losing a job. (Separate JVM processes, kill -9 and a
 * 3-server ensemble are the next step of the cluster issue.)
 *
 * <p>The tests share one cluster of three (starting and stopping one was seconds of each test): each
 * begins with three nodes, as each ends, and submits to a service or jobs of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterIT {
    static TestingServer zookeeper;
    static String jdbcUrl;
    static CallbackReceiver receiver;
    static String appToken;
    static String service;

    final List<HourglassNode> nodes = new ArrayList<>();
    String root;

    @BeforeAll
    static void startShared() throws Exception {
        zookeeper = new TestingServer(true);
        jdbcUrl = EmbeddedMariaDb.newDatabase();
        receiver = new CallbackReceiver();
    }

    @AfterAll
    void stopShared() throws Exception {
        try {
            Together.close(nodes); // the tests are over: the nodes stop at once
        } finally {
            nodes.clear();
            if (receiver != null) {
                receiver.close();
            }
            if (zookeeper != null) {
                zookeeper.close();
            }
            ZooKeeperLeftovers.delete();
        }
    }

    /** Three nodes: started for the first test, and again after a test that ended with fewer. */
    @BeforeEach
    void cluster() {
        if (root == null) {
            root = "/hg-test-" + System.nanoTime();
        }
        while (nodes.size() < 3) {
            nodes.add(startNode());
        }
        ApiClient admin = admin(0);
        if (appToken == null) {
            appToken = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                    .json()
                    .get("token")
                    .asText();
            service = "clustered";
            admin.as(appToken)
                    .put("/api/v1/services/" + service, "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}");
        }
    }

    private HourglassNode startNode() {
        NodeConfig c = TestNodes.config(jdbcUrl);
        // HTTP callbacks only: without Dubbo, whose stop (half a second of it a graceful wait) was
        // most of each node's, and which one JVM's nodes start and stop one at a time
        c.dubbo.enabled = false;
        c.cluster.zkConnect = zookeeper.getConnectString();
        c.cluster.zkRoot = root;
        return TestNodes.start(c);
    }

    private ApiClient admin(int i) {
        return new ApiClient(nodes.get(i).baseUrl(), TestNodes.ADMIN_TOKEN);
    }

    /** node id -> shard count, as node {@code i} sees the cluster. */
    private Map<String, Integer> shardCounts(int i) {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        for (JsonNode n : admin(i).get("/api/v1/cluster").json().get("nodes")) {
            counts.put(n.get("id").asText(), n.get("shards").size());
        }
        return counts;
    }

    private void awaitBalanced(int members) {
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            for (int i = 0; i < nodes.size(); i++) {
                Map<String, Integer> counts = shardCounts(i);
                int total = counts.values().stream().mapToInt(Integer::intValue).sum();
                int min = counts.values().stream()
                        .mapToInt(Integer::intValue)
                        .min()
                        .orElse(0);
                int max = counts.values().stream()
                        .mapToInt(Integer::intValue)
                        .max()
                        .orElse(0);
                if (counts.size() != members || total != 64 || max - min > 1) {
                    return false;
                }
            }
            return true;
        });
    }

    @Test
    void theMasterSpreadsTheShardsEvenlyAndEveryNodeAgrees() {
        awaitBalanced(3);
        JsonNode view = admin(1).get("/api/v1/cluster").json();
        assertThat(view.get("master").asText()).isNotEmpty();
        assertThat(view.get("epoch").asLong()).isPositive();
        assertThat(admin(2).get("/api/v1/cluster").json().get("master").asText())
                .isEqualTo(view.get("master").asText());
    }

    @Test
    void jobsSubmittedToAnyNodeAreDeliveredOnceAndNeverEarly() {
        awaitBalanced(3);
        List<JsonNode> jobs = submitAcrossNodes(150, 500, 3_000);
        awaitDelivered(jobs);
        assertDeliveredOnceOnTime(jobs);
    }

    @Test
    void aNodeThatLeavesHandsItsShardsOverWithoutLosingAJob() {
        awaitBalanced(3);
        List<JsonNode> jobs = submitAcrossNodes(200, 1_000, 4_000);
        nodes.remove(1).close(); // graceful leave, while its jobs are due
        awaitBalanced(2);
        awaitDelivered(jobs);
        assertDeliveredOnceOnTime(jobs);
        nodes.add(startNode()); // and a join takes shards back from both
        awaitBalanced(3);
        List<JsonNode> more = submitAcrossNodes(60, 300, 1_500);
        awaitDelivered(more);
        assertDeliveredOnceOnTime(more);
    }

    @Test
    void rescheduleCancelAndFireNowWorkThroughAnyNode() {
        awaitBalanced(3);
        ApiClient viaA = admin(0).as(appToken);
        ApiClient viaB = admin(1).as(appToken);
        ApiClient viaC = admin(2).as(appToken);
        String far = viaA.post("/api/v1/jobs", "{\"service\":\"" + service + "\",\"delayMs\":3600000}")
                .json()
                .get("id")
                .asText();
        // seconds ahead: the cancel of `near` comes before it is due, even on a machine that
        // stalls a second
        JsonNode moved = viaB.patch("/api/v1/jobs/" + far, "{\"delayMs\":4000}").json();
        String near = viaA.post("/api/v1/jobs", "{\"service\":\"" + service + "\",\"delayMs\":4000}")
                .json()
                .get("id")
                .asText();
        assertThat(viaC.delete("/api/v1/jobs/" + near).json().get("state").asText())
                .isEqualTo("CANCELED");
        String later = viaA.post("/api/v1/jobs", "{\"service\":\"" + service + "\",\"delayMs\":3600000}")
                .json()
                .get("id")
                .asText();
        StallWatch stalls = new StallWatch();
        long fired = System.currentTimeMillis();
        assertThat(viaC.post("/api/v1/jobs/" + later + "/fire", "").status()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> !receiver.receivedFor(far).isEmpty()
                        && !receiver.receivedFor(later).isEmpty());
        stalls.close();
        long movedFireAt = NodeFixture.epochMs(moved.get("fireAt"));
        assertThat(receiver.receivedFor(far).get(0).at())
                .as("the moved job, at its new time; %s", stalls)
                .isBetween(movedFireAt, movedFireAt + 1_000 + stalls.longestStallMs());
        assertThat(receiver.receivedFor(later).get(0).at() - fired)
                .as("fired now through another node; %s", stalls)
                .isLessThan(1_000 + stalls.longestStallMs());
        await().atMost(Duration.ofSeconds(5)).until(() -> System.currentTimeMillis() > movedFireAt + 1_000);
        assertThat(receiver.receivedFor(near))
                .as("canceled through another node")
                .isEmpty();
    }

    /**
     * docs/api.md, "Flow control": a pause through one node holds every node within a second, and a
     * rate limit holds across the cluster when the backlog the pause built up is released: 5,000
     * due jobs at 200/s (burst 20) over three nodes — the receiver sees at most 220 (and a few of
     * jitter) in any second, and every job once.
     */
    @Test
    void aPauseThroughOneNodeHoldsEveryNodeAndTheReleasedBacklogDrainsAtTheClusterWideRate() {
        awaitBalanced(3);
        ApiClient viaA = admin(0).as(appToken);
        ApiClient viaC = admin(2).as(appToken);
        String limited = "limited";
        assertThat(viaA.put(
                                "/api/v1/services/" + limited,
                                "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url()
                                        + "\",\"rateLimit\":{\"perSecond\":200,\"burst\":20}}")
                        .status())
                .isEqualTo(200);
        assertThat(viaA.post("/api/v1/services/" + limited + "/pause", "").status())
                .isEqualTo(200);
        long pausedAt = System.currentTimeMillis();
        await().atMost(Duration.ofSeconds(5)).until(() -> System.currentTimeMillis() > pausedAt + 1_000);
        List<String> ids = new ArrayList<>();
        for (int batch = 0; batch < 5; batch++) { // through every node: their shards are all nodes'
            StringBuilder body = new StringBuilder("{\"jobs\":[");
            for (int i = 0; i < 1_000; i++) {
                body.append(i == 0 ? "" : ",").append("{\"service\":\"" + limited + "\",\"delayMs\":0}");
            }
            ApiClient.Answer a = admin(batch % 3).as(appToken).post("/api/v1/jobs/batch", body + "]}");
            assertThat(a.status()).as(a.text()).isEqualTo(200);
            a.json().get("results").forEach(r -> ids.add(r.get("job").get("id").asText()));
        }
        await().atMost(Duration.ofSeconds(5))
                .pollDelay(Duration.ofMillis(1_500))
                .until(() -> true);
        assertThat(receivedOf(limited)).as("held on every node while paused").isEmpty();

        long resumedAt = System.currentTimeMillis();
        assertThat(viaC.post("/api/v1/services/" + limited + "/resume", "").status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(60)).until(() -> receivedOf(limited).size() >= ids.size());
        List<Long> at = receivedOf(limited).stream().map(Received::at).sorted().toList();
        int worst = Windows.mostWithin(at, 1_000);
        // 220 = burst + perSecond; each node's burst share is a whole 6 or 7 (no rounding up), and
        // a few more for the jitter between a send and its arrival
        assertThat(worst).as("most deliveries in any second").isLessThanOrEqualTo(220 + 5);
        assertThat(worst).as("and the limit is used, not undershot by far").isGreaterThan(150);
        long drained = at.get(at.size() - 1) - resumedAt;
        System.out.printf(
                "rate limit 200/s burst 20, 3 nodes: most in any second %d, drained in %d ms%n", worst, drained);
        assertThat(drained).as("5,000 at 200/s").isBetween(24_000L, 40_000L);
        Map<String, Integer> counts = receiver.countsByJob();
        ids.forEach(
                id -> assertThat(counts.get(id)).as("job %s delivered once", id).isEqualTo(1));
    }

    private List<Received> receivedOf(String serviceName) {
        List<Received> out = new ArrayList<>();
        for (Received r : receiver.received()) {
            if (r.body().contains("\"service\":\"" + serviceName + "\"")) {
                out.add(r);
            }
        }
        return out;
    }

    private List<JsonNode> submitAcrossNodes(int count, long firstDelay, long spread) {
        List<JsonNode> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ApiClient client = admin(i % nodes.size()).as(appToken);
            long delay = firstDelay + spread * i / count;
            jobs.add(client.post("/api/v1/jobs", "{\"service\":\"" + service + "\",\"delayMs\":" + delay + "}")
                    .json());
        }
        return jobs;
    }

    private void awaitDelivered(List<JsonNode> jobs) {
        await().atMost(Duration.ofSeconds(30)).until(() -> jobs.stream()
                .allMatch(j -> !receiver.receivedFor(j.get("id").asText()).isEmpty()));
    }

    private void assertDeliveredOnceOnTime(List<JsonNode> jobs) {
        Set<String> ids = new HashSet<>();
        for (JsonNode job : jobs) {
            String id = job.get("id").asText();
            assertThat(ids.add(id)).isTrue();
            List<Received> got = receiver.receivedFor(id);
            assertThat(got).as("deliveries of " + id).hasSize(1);
            assertThat(got.get(0).at()).isGreaterThanOrEqualTo(NodeFixture.epochMs(job.get("fireAt")));
        }
    }
}
