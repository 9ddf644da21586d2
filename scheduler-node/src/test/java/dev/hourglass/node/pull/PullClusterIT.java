package dev.hourglass.node.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.node.testing.ProcessCluster;
import dev.hourglass.node.testing.TestNodes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Pull consumers on a cluster of three node processes (one MariaDB, a real ZooKeeper): any node
 * serves any consumer, a long poll on one node is woken by a job submitted through another, and
 * kill -9 of the node that owns the reserved jobs' shards loses none and acknowledges each once
 * (docs/api.md, "Pull consumers"; docs/design.md, "Pull consumers"). One cluster for both tests
 * (node starts are most of their time); the kill comes last.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PullClusterIT {
    static final int SESSION_TIMEOUT_MS = 4_000;

    TestingServer zookeeper;
    CallbackReceiver receiver; // ProcessCluster.stop closes one; PULL services need none
    final List<NodeProcess> nodes = new ArrayList<>();
    List<ApiClient> apps;

    @BeforeAll
    void start() throws Exception {
        zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 1_000, -1), true);
        receiver = new CallbackReceiver();
        String jdbcUrl = EmbeddedMariaDb.newDatabase();
        for (int i = 0; i < 3; i++) {
            nodes.add(NodeProcess.start(
                    "pull" + i,
                    jdbcUrl,
                    zookeeper.getConnectString(),
                    "/hg-pull",
                    "  zkSessionTimeoutMs: " + SESSION_TIMEOUT_MS,
                    false)); // Dubbo off: the consumers here reserve over HTTP
        }
        nodes.forEach(NodeProcess::awaitReady);
        ApiClient admin = admin(0);
        String token = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText();
        apps = nodes.stream().map(n -> admin(nodes.indexOf(n)).as(token)).toList();
        assertThat(apps.get(0)
                        .put("/api/v1/services/work", "{\"protocol\":\"PULL\",\"backoff\":{\"initialMs\":100}}")
                        .status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            JsonNode cluster = admin.get("/api/v1/cluster").json().get("nodes");
            int owning = 0;
            for (JsonNode n : cluster) {
                owning += n.get("shards").size() > 0 ? 1 : 0;
            }
            return cluster.size() == 3 && owning == 3;
        });
    }

    @AfterAll
    void stop() throws Exception {
        ProcessCluster.stop(nodes, receiver, zookeeper);
    }

    private ApiClient admin(int node) {
        return new ApiClient(nodes.get(node).baseUrl(), TestNodes.ADMIN_TOKEN);
    }

    private record Held(String id, int attempt, int shard) {}

    private static List<Held> reserve(ApiClient through, int max, long ttrMs, long waitMs) {
        ApiClient.Answer a = through.post(
                "/api/v1/reserve",
                "{\"services\":[\"work\"],\"max\":" + max + ",\"ttrMs\":" + ttrMs + ",\"waitMs\":" + waitMs + "}");
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        List<Held> held = new ArrayList<>();
        a.json()
                .get("items")
                .forEach(r -> held.add(new Held(
                        r.get("id").asText(),
                        r.get("attempt").asInt(),
                        r.get("shard").asInt())));
        return held;
    }

    /** Acknowledges in one batch; returns how many the node accepted. */
    private static int acknowledge(ApiClient through, List<Held> held) {
        if (held.isEmpty()) {
            return 0;
        }
        StringBuilder body = new StringBuilder("{\"results\":[");
        for (int i = 0; i < held.size(); i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"jobId\":\"")
                    .append(held.get(i).id())
                    .append("\",\"attempt\":")
                    .append(held.get(i).attempt())
                    .append(",\"status\":\"SUCCESS\"}");
        }
        ApiClient.Answer a = through.post("/api/v1/results", body.append("]}").toString());
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        int accepted = 0;
        for (JsonNode r : a.json().get("results")) {
            accepted += r.has("state") ? 1 : 0;
        }
        return accepted;
    }

    private List<String> submitNow(ApiClient through, int count) {
        List<String> ids = new ArrayList<>();
        for (int done = 0; done < count; ) {
            int n = Math.min(1_000, count - done);
            StringBuilder body = new StringBuilder("{\"jobs\":[");
            for (int i = 0; i < n; i++) {
                body.append(i == 0 ? "" : ",")
                        .append("{\"service\":\"work\",\"delayMs\":0,\"payload\":{\"i\":")
                        .append(done + i)
                        .append("}}");
            }
            JsonNode results = through.post(
                            "/api/v1/jobs/batch", body.append("]}").toString())
                    .json()
                    .get("results");
            results.forEach(r -> ids.add(r.get("job").get("id").asText()));
            done += n;
        }
        return ids;
    }

    /** Shard → owning node id, as the cluster view says now. */
    private Map<Integer, String> owners() {
        Map<Integer, String> owners = new HashMap<>();
        for (JsonNode n : admin(0).get("/api/v1/cluster").json().get("nodes")) {
            n.get("shards").forEach(s -> owners.put(s.asInt(), n.get("id").asText()));
        }
        return owners;
    }

    @Test
    @Order(1)
    void consumersOnEveryNodeShareTheJobsOfEveryShardAndALongPollIsWokenThroughAnotherNode() throws Exception {
        // a consumer waiting on node 2 gets a job submitted through node 0
        CompletableFuture<List<Held>> waiting =
                CompletableFuture.supplyAsync(() -> reserve(apps.get(2), 1, 60_000, 20_000));
        Thread.sleep(500);
        assertThat(waiting).isNotDone();
        long submitted = System.currentTimeMillis();
        String lone = submitNow(apps.get(0), 1).get(0);
        List<Held> woken = waiting.get(10, TimeUnit.SECONDS);
        long wokenAfter = System.currentTimeMillis() - submitted;
        assertThat(woken).extracting(Held::id).containsExactly(lone);
        System.out.printf("PULL-CLUSTER long poll on another node woken %d ms after the submit%n", wokenAfter);
        assertThat(wokenAfter)
                .as("the other node's watcher, well within a second")
                .isLessThan(1_500);
        assertThat(acknowledge(apps.get(2), woken)).isEqualTo(1);

        // 1,500 jobs submitted through all three nodes; a consumer on each node
        Set<String> all = new HashSet<>();
        for (int n = 0; n < 3; n++) {
            all.addAll(submitNow(apps.get(n), 500));
        }
        Map<Integer, String> owners = owners();
        Map<String, AtomicInteger> acknowledged = new ConcurrentHashMap<>();
        List<Set<String>> ownersServed = new ArrayList<>();
        List<CompletableFuture<Void>> consumers = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 60_000;
        for (int n = 0; n < 3; n++) {
            ApiClient through = apps.get(n);
            Set<String> served = ConcurrentHashMap.newKeySet();
            ownersServed.add(served);
            consumers.add(CompletableFuture.runAsync(() -> {
                while (acknowledged.size() < all.size() && System.currentTimeMillis() < deadline) {
                    List<Held> held = reserve(through, 50, 60_000, 500);
                    held.forEach(h -> served.add(owners.getOrDefault(h.shard(), "?")));
                    acknowledge(through, held);
                    held.forEach(h -> acknowledged
                            .computeIfAbsent(h.id(), k -> new AtomicInteger())
                            .incrementAndGet());
                }
            }));
        }
        CompletableFuture.allOf(consumers.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
        assertThat(acknowledged.keySet())
                .as("every job reserved and acknowledged")
                .containsExactlyInAnyOrderElementsOf(all);
        assertThat(acknowledged.values()).as("each reserved once").allMatch(c -> c.get() == 1);
        for (int n = 0; n < 3; n++) {
            assertThat(ownersServed.get(n))
                    .as("consumer on node %d got jobs of shards other nodes own", n)
                    .hasSizeGreaterThan(1);
        }
        JsonNode finished = apps.get(1)
                .get("/api/v1/jobs?state=FINISHED&service=work&limit=500")
                .json();
        assertThat(finished.get("items")).isNotEmpty();
    }

    @Test
    @Order(2)
    void killingTheOwnerOfTheShardsWhile500JobsAreReservedLosesNoneAndAcknowledgesEachOnce() throws Exception {
        NodeProcess owner = nodes.get(0);
        List<String> ids = submitNow(apps.get(0), 500); // due now: on node 0's own shards
        Map<Integer, String> owners = owners();
        List<Held> held = new ArrayList<>();
        while (held.size() < 500) {
            List<Held> got = reserve(apps.get(1), 100, 8_000, 2_000);
            assertThat(got).as("all 500 reservable through node 1").isNotEmpty();
            held.addAll(got);
        }
        long reservedAt = System.currentTimeMillis();
        assertThat(held).extracting(Held::id).containsExactlyInAnyOrderElementsOf(ids);
        long onOwner = held.stream()
                .filter(h -> owner.nodeId().equals(owners.get(h.shard())))
                .count();
        assertThat(onOwner).as("the reserved jobs are on the owner's shards").isGreaterThan(400);

        owner.kill9();
        // half answered at once, through the node the consumer talks to: accepted, once
        List<Held> answered = held.subList(0, 250);
        assertThat(acknowledge(apps.get(1), answered)).isEqualTo(250);
        assertThat(acknowledge(apps.get(1), answered))
                .as("a second ack of the same attempt")
                .isZero();

        // the other half never answered: due again once the deadline passed, on the new owners
        Set<String> unanswered = new HashSet<>();
        held.subList(250, 500).forEach(h -> unanswered.add(h.id()));
        Map<String, Integer> secondAttempts = new HashMap<>();
        long until = System.currentTimeMillis() + 60_000;
        while (secondAttempts.size() < unanswered.size() && System.currentTimeMillis() < until) {
            List<Held> again = reserve(apps.get(2), 100, 60_000, 1_000);
            for (Held h : again) {
                assertThat(unanswered).as("only the unanswered come back").contains(h.id());
                assertThat(System.currentTimeMillis())
                        .as("not before the deadline")
                        .isGreaterThan(reservedAt + 8_000);
                assertThat(secondAttempts.put(h.id(), h.attempt()))
                        .as("each once")
                        .isNull();
            }
            assertThat(acknowledge(apps.get(2), again)).isEqualTo(again.size());
        }
        assertThat(secondAttempts.keySet()).containsExactlyInAnyOrderElementsOf(unanswered);
        assertThat(secondAttempts.values()).allMatch(a -> a == 2);
        assertThat(acknowledge(apps.get(2), held.subList(250, 500)))
                .as("the lapsed attempts: stale")
                .isZero();
        for (String id : List.of(ids.get(0), ids.get(499))) {
            assertThat(apps.get(2).get("/api/v1/jobs/" + id).json().get("state").asText())
                    .isEqualTo("FINISHED");
        }
        System.out.printf(
                "PULL-CLUSTER kill -9 of the owner with 500 reserved: 250 acknowledged after the kill, 250 reserved"
                        + " again after their deadline and acknowledged; %d ms from the reservation to the last%n",
                System.currentTimeMillis() - reservedAt);
    }
}
