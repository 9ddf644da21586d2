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
import dev.hourglass.node.testing.RunsPaired;
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
 * each delivered, none before its occurrence, no (job, attempt) twice. The suite runs it as short
 * as it can: the second kill once the first node's shards have moved (its 5 s session, then the
 * master's reassignment), the end once the survivor has taken every shard and run alone for 4 s;
 * {@code -Dhourglass.schedule.failover.seconds=120} runs it for two minutes at least.
 */
// paired: no bound on how soon; its one count check depends on when the kills happened, not on the
// CPU (a slower machine only gives it more occurrences), and 5 s sessions are not at risk from a
// neighbour that waits (33% of the two cores alone, thread census 2026-11-27)
@RunsPaired
class ScheduleFailoverIT {
    /** At least this long a run; {@code -Dhourglass.schedule.failover.seconds=120} for two minutes. */
    static final int SECONDS = Integer.getInteger("hourglass.schedule.failover.seconds", 0);
    /** How long the survivor runs alone, holding every shard, before the schedule is paused. */
    static final long AFTER_SECOND_KILL_MS = 4_000;

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
                    "s" + i,
                    jdbcUrl,
                    zookeeper.getConnectString(),
                    "/hg-schedule-failover",
                    // each failover waits out a session: 5 s (as ScalingIT's and GracefulStopIT's
                    // node processes) rather than the default 10 s
                    "  zkSessionTimeoutMs: 5000",
                    false));
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

        // put paused first, to learn the schedule's shard; then through the node that owns it, whose
        // pass submits the first occurrences into its own shards: the kill takes those with it
        JsonNode held = admin.as(token)
                .put("/api/v1/schedules/every-second", "{\"service\":\"tick\",\"every\":\"PT1S\",\"paused\":true}")
                .json();
        int shard = held.get("shard").asInt();
        NodeProcess owner = ownerOf(shard, alive());
        JsonNode schedule = admin(owner)
                .as(token)
                .put("/api/v1/schedules/every-second", "{\"service\":\"tick\",\"every\":\"PT1S\",\"paused\":false}")
                .json();
        assertThat(schedule.get("paused").asBoolean()).isFalse();
        long anchor = NodeFixture.epochMs(schedule.get("createdAt")); // an interval counts from it
        // the replace kept the paused put's creation time, the anchor; it goes on from its own time
        long replacedAt = NodeFixture.epochMs(schedule.get("updatedAt"));
        long first = anchor + (replacedAt - anchor + 999) / 1_000 * 1_000;
        long end = anchor + SECONDS * 1_000L;

        // by then the owner's pass has submitted the next 30 s of occurrences into its own shards
        await().atMost(Duration.ofSeconds(30)).until(() -> System.currentTimeMillis() >= anchor + 3_000);
        NodeProcess submitter = ownerOf(shard, alive());
        submitter.kill9();
        long firstKill = System.currentTimeMillis();
        // the shard has a new owner once the cluster noticed (session timeout, then the master)
        await().atMost(Duration.ofSeconds(60))
                .until(() -> ownerOf(shard, alive()) != null
                        && !ownerOf(shard, alive()).equals(submitter));
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
        // the survivor alone holds every shard (the dead nodes' overdue jobs are its now), then
        // has fired alone for a while: a pause before that would cancel them, not see them late
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JsonNode members = admin(survivor).get("/api/v1/cluster").json().get("nodes");
            return members.size() == 1 && members.get(0).get("shards").size() == 64;
        });
        long alone = System.currentTimeMillis();
        await().atMost(Duration.ofSeconds(SECONDS + 60))
                .until(() -> System.currentTimeMillis() >= Math.max(end, alone + AFTER_SECOND_KILL_MS));
        JsonNode paused = app.post("/api/v1/schedules/every-second/pause", "").json();
        long pausedAt = NodeFixture.epochMs(paused.get("pausedAt"));
        // what was due before the pause and not canceled by it: delivered, by the survivor at the latest
        long lastExpected = pausedAt - 2_000;
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> occurrences().keySet().containsAll(expected(first, lastExpected)));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            List<Long> missing = new ArrayList<>(expected(first, lastExpected));
            missing.removeAll(occurrences().keySet());
            StringBuilder why = new StringBuilder("occurrences never delivered (ms after the put): ");
            for (long o : missing) {
                JsonNode job =
                        app.get("/api/v1/jobs?schedule=every-second&limit=500").json();
                String state = "no job";
                for (JsonNode j : job.get("items")) {
                    if (j.get("bizKey").asText().endsWith(":" + o)) {
                        state = j.get("id").asText() + " " + j.get("state").asText() + " fireAt "
                                + j.get("fireAt").asText();
                    }
                }
                why.append(o - anchor).append(" [").append(state).append("] ");
            }
            why.append("; delivered (ms after the put): ")
                    .append(occurrences().keySet().stream()
                            .limit(10)
                            .map(o -> o - anchor)
                            .toList())
                    .append("; the schedule: ")
                    .append(app.get("/api/v1/schedules/every-second").text());
            why.append("; kills at +")
                    .append(firstKill - anchor)
                    .append(" and +")
                    .append(secondKill - anchor)
                    .append(", pause at +")
                    .append(pausedAt - anchor);
            throw new AssertionError(why.toString(), e);
        }

        assertThat(expected(first, lastExpected))
                .as("occurrences from before the first kill to after the second's takeover")
                .hasSizeGreaterThan((int) ((secondKill - first) / 1_000) + 5);
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
        for (long o : expected(first, lastExpected)) {
            assertThat(jobsByOccurrence.get(o)).as("jobs of occurrence %d", o).hasSize(1);
        }
        jobsByOccurrence.forEach(
                (o, ids) -> assertThat(ids).as("jobs of occurrence %d", o).hasSize(1));
        assertThat(jobsByOccurrence.keySet()).allMatch(o -> (o - anchor) % 1_000 == 0 && o >= first);
        System.out.printf(
                "schedule failover: %d occurrences over %d s, first kill at +%d ms (%s), second at +%d ms (%s), "
                        + "worst lateness %d ms%n",
                expected(first, lastExpected).size(),
                (pausedAt - anchor) / 1_000,
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
