package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.node.testing.RunsAlongside;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guarantee 1 of docs/api.md, "Guarantees" (durable on acknowledgement), in the mode every new user
 * meets first: a standalone node (embedded H2, embedded ZooKeeper, generated admin token; the
 * README's bare command) killed with kill -9 right after it acknowledged writes, then started again
 * on the same data directory. Each scenario repeats the kill enough times to catch a loss that
 * happens one time in ten: with H2's default write delay (commits reach the file up to 500 ms
 * later) 19 to 126 of 300 acknowledged jobs were gone.
 */
@RunsAlongside
class StandaloneCrashIT {
    static final int SUBMIT_ROUNDS = 10;
    static final int JOBS_PER_SUBMIT_ROUND = 300;
    static final int SUBMIT_CLIENTS = 4;
    static final int CLAIM_ROUNDS = 5;
    static final int JOBS_PER_CLAIM_ROUND = 10;

    /**
     * Fast housekeeping, and a short session so a restarted node need not wait long for the old
     * one's. Short, and safe beside another test JVM: the session is the embedded ZooKeeper's, in
     * the node's own process, so a stall that starves the node starves the server's clock too. The nodes run without Dubbo ({@link #startNode}): these jobs are HTTP callbacks, and
     * Dubbo's start is 2.5 s of each of the 17 starts here (7.4 s against 4.9 s standalone).
     */
    static final String FAST = String.join(
            "\n",
            "engine:",
            "  loadIntervalMs: 200",
            "  catchUpIntervalMs: 300",
            "  timeoutSweepIntervalMs: 200",
            "cluster:",
            "  zkSessionTimeoutMs: 3000");

    /** Kept when a test fails: the data directory and every node's log, for the post-mortem. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path work;

    Path dataDir;
    NodeProcess node;
    CallbackReceiver receiver;
    int starts;

    @BeforeEach
    void start() throws Exception {
        dataDir = work.resolve("data");
        receiver = new CallbackReceiver();
        node = startNode();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (node != null) {
                node.close();
            }
        } finally {
            receiver.close();
        }
    }

    private NodeProcess startNode() throws Exception {
        return NodeProcess.startStandalone("standalone-" + starts++, dataDir, FAST, false)
                .awaitReady();
    }

    private ApiClient admin() throws Exception {
        return node.admin();
    }

    private ApiClient newApp(String name) throws Exception {
        ApiClient.Answer app = admin().post("/api/v1/apps", "{\"name\":\"" + name + "\"}");
        assertThat(app.status()).as(app.text()).isEqualTo(201);
        return admin().as(app.json().get("token").asText());
    }

    /** The app's client against the node running now (a restart has a new port). */
    private ApiClient onCurrentNode(ApiClient app) {
        return new ApiClient(node.baseUrl(), app.token());
    }

    private void restartAfterKill9() throws Exception {
        node.kill9();
        node = startNode();
    }

    @Test
    void everyAcknowledgedSubmitSurvivesKill9RightAfterItsAnswer() throws Exception {
        ApiClient app = newApp("shop");
        assertThat(app.put("/api/v1/services/later", "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}")
                        .status())
                .isEqualTo(200);
        List<String> lost = new ArrayList<>();
        long started = System.currentTimeMillis();
        for (int round = 1; round <= SUBMIT_ROUNDS; round++) {
            ApiClient client = onCurrentNode(app);
            long roundStart = System.nanoTime();
            List<String> acknowledged = submittedConcurrently(client);
            long submitMs = (System.nanoTime() - roundStart) / 1_000_000;
            restartAfterKill9();
            ApiClient after = onCurrentNode(app);
            List<String> missing = missingOf(after, acknowledged);
            System.out.printf(
                    "STANDALONE-CRASH submit round %d: %d single submits from %d clients in %d ms, kill -9 at once, %d missing"
                            + " after restart%n",
                    round, JOBS_PER_SUBMIT_ROUND, SUBMIT_CLIENTS, submitMs, missing.size());
            for (String id : missing) {
                lost.add("round " + round + " job " + id + " (log " + node.log() + ")");
            }
        }
        System.out.printf(
                "STANDALONE-CRASH submit: %d rounds in %d ms%n", SUBMIT_ROUNDS, System.currentTimeMillis() - started);
        assertThat(lost)
                .as(lost.size() + " of " + SUBMIT_ROUNDS * JOBS_PER_SUBMIT_ROUND
                        + " acknowledged jobs lost by kill -9 of the standalone node (docs/api.md, \"Guarantees\")")
                .isEmpty();
    }

    /**
     * The round's single submits from {@code SUBMIT_CLIENTS} clients at once, as a service's
     * request threads send them: concurrent submits are committed in groups, and every job of a
     * group is acknowledged by the one commit. The ids acknowledged, in the order of their answers.
     */
    private static List<String> submittedConcurrently(ApiClient client) throws Exception {
        List<String> acknowledged = Collections.synchronizedList(new ArrayList<>());
        byClients(JOBS_PER_SUBMIT_ROUND, i -> {
            ApiClient.Answer a = client.post(
                    "/api/v1/jobs", "{\"service\":\"later\",\"delayMs\":3600000,\"payload\":{\"i\":" + i + "}}");
            assertThat(a.status()).as(a.text()).isEqualTo(201);
            acknowledged.add(a.json().get("id").asText());
        });
        return acknowledged;
    }

    /**
     * The acknowledged jobs the node does not have, each looked up by id, by as many clients as
     * submitted them: 300 lookups one after another took seconds of every round.
     */
    private static List<String> missingOf(ApiClient client, List<String> acknowledged) throws Exception {
        List<String> missing = Collections.synchronizedList(new ArrayList<>());
        byClients(acknowledged.size(), i -> {
            if (!exists(client, acknowledged.get(i))) {
                missing.add("#" + i + " " + acknowledged.get(i));
            }
        });
        return missing;
    }

    /** {@code work} for 0..count-1 on {@code SUBMIT_CLIENTS} threads: thread c does c, c + SUBMIT_CLIENTS, ... */
    private static void byClients(int count, IntConsumer work) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(SUBMIT_CLIENTS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < SUBMIT_CLIENTS; c++) {
                int first = c;
                done.add(clients.submit(() -> {
                    for (int i = first; i < count; i += SUBMIT_CLIENTS) {
                        work.accept(i);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES); // a bound for a hung node, not a measure: a round takes seconds
            }
        } finally {
            clients.shutdownNow();
        }
    }

    /**
     * 200: there; 404: lost; anything else (a node still busy starting) is asked again, and
     * printed, so that a transient answer is never counted as a loss nor goes unseen.
     */
    private static boolean exists(ApiClient client, String id) {
        int[] status = {0};
        await("an answer other than 200/404 for job " + id)
                .atMost(Duration.ofSeconds(20))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    ApiClient.Answer a = client.get("/api/v1/jobs/" + id);
                    status[0] = a.status();
                    if (status[0] != 200 && status[0] != 404) {
                        System.out.printf("STANDALONE-CRASH transient answer for job %s: %s%n", id, a.text());
                    }
                    return status[0] == 200 || status[0] == 404;
                });
        return status[0] == 200;
    }

    /**
     * Jobs due now are claimed (RUNNING, attempt 1) and sent to a receiver that holds the requests
     * open; once it has seen attempt 1 of every one, kill -9. The restarted node finds them RUNNING
     * past their timeout and sends attempt 2: a lost claim would send attempt 1 again, and a lost
     * job would never come back.
     */
    @Test
    void aClaimSurvivesKill9SoNoAttemptIsSentTwice() throws Exception {
        ApiClient app = newApp("shop");
        CountDownLatch[] release = {new CountDownLatch(1)};
        receiver.respond(r -> {
            if (r.attempt() == 1) {
                try {
                    release[0].await(30, TimeUnit.SECONDS); // held open until the node is dead
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Reply.ok();
        });
        assertThat(app.put(
                                "/api/v1/services/held",
                                "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url()
                                        + "\",\"timeoutMs\":1500,\"backoff\":{\"initialMs\":100}}")
                        .status())
                .isEqualTo(200);
        Set<String> all = new LinkedHashSet<>();
        for (int round = 1; round <= CLAIM_ROUNDS; round++) {
            ApiClient client = onCurrentNode(app);
            Set<String> jobs = new LinkedHashSet<>();
            for (int i = 0; i < JOBS_PER_CLAIM_ROUND; i++) {
                ApiClient.Answer a = client.post("/api/v1/jobs", "{\"service\":\"held\",\"delayMs\":0}");
                assertThat(a.status()).as(a.text()).isEqualTo(201);
                jobs.add(a.json().get("id").asText());
            }
            all.addAll(jobs);
            await("attempt 1 of round " + round + " at the receiver")
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> attemptsSeen(jobs, 1) == jobs.size());
            restartAfterKill9WhileHeld(release);
            long ready = System.currentTimeMillis();
            ApiClient after = onCurrentNode(app);
            try {
                await("attempt 2 of round " + round + " after the restart")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> attemptsSeen(jobs, 2) == jobs.size()
                                || !duplicateAttempts().isEmpty());
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(
                        "round " + round + ": not every job came back as attempt 2 after the restart (log " + node.log()
                                + "):" + describe(after, jobs),
                        e);
            }
            System.out.printf(
                    "STANDALONE-CRASH claim round %d: %d jobs claimed, kill -9, restart; attempt 2 of all %d ms after"
                            + " the restarted node was ready; duplicates so far %d%n",
                    round,
                    jobs.size(),
                    System.currentTimeMillis() - ready,
                    duplicateAttempts().size());
            for (String id : jobs) {
                assertThat(exists(after, id))
                        .as("job " + id + " after the restart (log " + node.log() + ")")
                        .isTrue();
            }
        }
        assertThat(duplicateAttempts())
                .as("(job, attempt) delivered twice: a claim lost by kill -9")
                .isEmpty();
        for (String id : all) {
            assertThat(receiver.receivedFor(id).stream()
                            .mapToInt(Received::attempt)
                            .max()
                            .orElse(0))
                    .as("job " + id + " delivered again after the restart")
                    .isGreaterThanOrEqualTo(2);
        }
    }

    private void restartAfterKill9WhileHeld(CountDownLatch[] release) throws Exception {
        node.kill9();
        release[0].countDown(); // frees the receiver's threads; their answers go nowhere
        release[0] = new CountDownLatch(1);
        node = startNode();
    }

    /** What the node and the receiver know of each job, for a failure message. */
    private String describe(ApiClient client, Set<String> jobs) {
        StringBuilder b = new StringBuilder();
        for (String id : jobs) {
            b.append("\n  ")
                    .append(client.get("/api/v1/jobs/" + id).text())
                    .append("\n    executions: ")
                    .append(client.get("/api/v1/jobs/" + id + "/executions").text())
                    .append("\n    received attempts: ")
                    .append(receiver.receivedFor(id).stream()
                            .map(Received::attempt)
                            .toList());
        }
        return b.toString();
    }

    private long attemptsSeen(Set<String> jobs, int attempt) {
        return receiver.received().stream()
                .filter(r -> r.attempt() == attempt && jobs.contains(r.jobId()))
                .map(Received::jobId)
                .distinct()
                .count();
    }

    private List<String> duplicateAttempts() {
        Set<String> seen = new HashSet<>();
        List<String> twice = new ArrayList<>();
        for (Received r : receiver.received()) {
            if (!seen.add(r.jobId() + "#" + r.attempt())) {
                twice.add(r.jobId() + " attempt " + r.attempt());
            }
        }
        return twice;
    }
}
