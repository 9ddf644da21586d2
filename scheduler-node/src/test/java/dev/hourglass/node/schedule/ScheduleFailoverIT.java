package dev.hourglass.node.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.NodeFixture;
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
import java.util.TreeMap;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A schedule firing every second on three node processes (one MariaDB, a real ZooKeeper): kill -9
 * of the node that submits its occurrences (the owner of its shard), then of the master (or, if
 * that was the same node, of the next submitter). Every occurrence of the run gets exactly one job,
 * each delivered, none before its occurrence, no (job, attempt) twice. The suite runs it for 50 s
 * (the second kill at about +28 s, the survivor submitting alone from about +40 s);
 * {@code -Dhourglass.schedule.failover.seconds=120} is the two minutes of docs/api.md's claim.
 */
class ScheduleFailoverIT {
    static final int SECONDS = Integer.getInteger("hourglass.schedule.failover.seconds", 50);
    static final ObjectMapper JSON = new ObjectMapper();

    TestingServer zookeeper;
    CallbackReceiver receiver;
    final List<NodeProcess> nodes = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 1_000, -1), true);
        receiver = new CallbackReceiver();
        String jdbcUrl = EmbeddedMariaDb.newDatabase();
        for (int i = 0; i < 3; i++) {
            nodes.add(NodeProcess.start(
                    "s" + i, jdbcUrl, zookeeper.getConnectString(), "/hg-schedule-failover", "", false));
        }
        nodes.forEach(NodeProcess::awaitReady);
    }

    @AfterEach
    void stop() throws Exception {
        ProcessCluster.stopTogether(nodes, receiver, zookeeper);
    }

    static ApiClient admin(NodeProcess n) {
        return new ApiClient(n.baseUrl(), TestNodes.ADMIN_TOKEN);
    }

    @Test
    void killingTheSubmittingNodeAndTheMasterNeitherLosesNorDuplicatesAnOccurrence() throws Exception {
        ApiClient admin = admin(nodes.get(0));
        String token = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText();
        admin.as(token).put("/api/v1/services/tick", "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> balanced(admin.get("/api/v1/cluster").json()));

        JsonNode schedule = admin.as(token)
                .put("/api/v1/schedules/every-second", "{\"service\":\"tick\",\"every\":\"PT1S\"}")
                .json();
        long anchor = NodeFixture.epochMs(schedule.get("createdAt"));
        int shard = schedule.get("shard").asInt();
        long end = anchor + SECONDS * 1_000L;

        await().atMost(Duration.ofSeconds(30)).until(() -> System.currentTimeMillis() >= anchor + 8_000);
        NodeProcess submitter = ownerOf(shard, alive());
        submitter.kill9();
        long firstKill = System.currentTimeMillis();
        // the shard has a new owner once the cluster noticed (session timeout, then the master)
        await().atMost(Duration.ofSeconds(60))
                .until(() -> ownerOf(shard, alive()) != null
                        && !ownerOf(shard, alive()).equals(submitter));
        await().atMost(Duration.ofSeconds(30)).until(() -> System.currentTimeMillis() >= firstKill + 20_000);
        List<NodeProcess> alive = alive();
        String master =
                admin(alive.get(0)).get("/api/v1/cluster").json().get("master").asText();
        NodeProcess second = alive.stream()
                .filter(n -> n.nodeId().equals(master))
                .findFirst()
                .orElse(ownerOf(shard, alive));
        second.kill9();
        long secondKill = System.currentTimeMillis();
        NodeProcess survivor = alive().get(0);
        ApiClient app = admin(survivor).as(token);

        await().atMost(Duration.ofSeconds(SECONDS + 60)).until(() -> System.currentTimeMillis() >= end);
        JsonNode paused = app.post("/api/v1/schedules/every-second/pause", "").json();
        long pausedAt = NodeFixture.epochMs(paused.get("pausedAt"));
        // what was due before the pause and not canceled by it: delivered, by the survivor at the latest
        long lastExpected = pausedAt - 2_000;
        await().atMost(Duration.ofSeconds(60))
                .until(() -> occurrences().keySet().containsAll(expected(anchor, lastExpected)));

        Map<Long, Set<String>> jobsByOccurrence = occurrences();
        Set<String> attempts = new HashSet<>();
        for (Received r : receiver.received()) {
            assertThat(attempts.add(r.jobId() + "#" + r.attempt()))
                    .as("job %s attempt %d delivered twice", r.jobId(), r.attempt())
                    .isTrue();
            long occurrence = occurrenceOf(r);
            assertThat(r.at())
                    .as("job %s before its occurrence %d", r.jobId(), occurrence)
                    .isGreaterThanOrEqualTo(occurrence);
        }
        for (long o : expected(anchor, lastExpected)) {
            assertThat(jobsByOccurrence.get(o)).as("jobs of occurrence %d", o).hasSize(1);
        }
        jobsByOccurrence.forEach(
                (o, ids) -> assertThat(ids).as("jobs of occurrence %d", o).hasSize(1));
        assertThat(jobsByOccurrence.keySet()).allMatch(o -> (o - anchor) % 1_000 == 0 && o >= anchor);
        System.out.printf(
                "schedule failover: %d occurrences over %d s, first kill at +%d ms (%s), second at +%d ms (%s), "
                        + "worst lateness %d ms%n",
                expected(anchor, lastExpected).size(),
                SECONDS,
                firstKill - anchor,
                submitter.nodeId(),
                secondKill - anchor,
                second.nodeId(),
                worstLateness());
    }

    private List<NodeProcess> alive() {
        return nodes.stream().filter(NodeProcess::isAlive).toList();
    }

    /** The node that owns {@code shard} now, as a living node's view of the cluster says. */
    private static NodeProcess ownerOf(int shard, List<NodeProcess> alive) {
        JsonNode cluster = admin(alive.get(0)).get("/api/v1/cluster").json();
        for (JsonNode n : cluster.get("nodes")) {
            for (JsonNode s : n.get("shards")) {
                if (s.asInt() == shard) {
                    String id = n.get("id").asText();
                    return alive.stream()
                            .filter(p -> p.nodeId().equals(id))
                            .findFirst()
                            .orElse(null);
                }
            }
        }
        return null;
    }

    private static List<Long> expected(long anchor, long last) {
        List<Long> all = new ArrayList<>();
        for (long o = anchor; o <= last; o += 1_000) {
            all.add(o);
        }
        return all;
    }

    private static long occurrenceOf(Received r) throws Exception {
        return Long.parseLong(JSON.readTree(r.body())
                .get("attributes")
                .get("hourglass-occurrence")
                .asText());
    }

    private Map<Long, Set<String>> occurrences() throws Exception {
        Map<Long, Set<String>> byOccurrence = new TreeMap<>();
        for (Received r : receiver.received()) {
            byOccurrence.computeIfAbsent(occurrenceOf(r), o -> new HashSet<>()).add(r.jobId());
        }
        return byOccurrence;
    }

    private long worstLateness() throws Exception {
        Map<String, Long> first = new HashMap<>();
        for (Received r : receiver.received()) {
            first.merge(r.jobId() + "@" + occurrenceOf(r), r.at(), Math::min);
        }
        return first.entrySet().stream()
                .mapToLong(e -> e.getValue()
                        - Long.parseLong(e.getKey().substring(e.getKey().indexOf('@') + 1)))
                .max()
                .orElse(0);
    }

    private static boolean balanced(JsonNode cluster) {
        JsonNode members = cluster.get("nodes");
        if (members.size() != 3) {
            return false;
        }
        int total = 0;
        for (JsonNode n : members) {
            total += n.get("shards").size();
            if (n.get("shards").size() < 21) {
                return false;
            }
        }
        return total == 64;
    }
}
