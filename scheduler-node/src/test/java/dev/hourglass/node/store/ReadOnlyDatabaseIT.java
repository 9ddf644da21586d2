package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The database stays readable but refuses writes (as with {@code read_only=1} during a switchover,
 * or a full disk) while 2,000 RUNNING attempts of a node that is gone wait to be timed out. The
 * timeout sweep finds them every run; what it queues must stay one result per attempt (the heap
 * bounded), and once writes come back each is written once and every job is delivered once more.
 *
 * <p>The refusal is made by triggers that fail every change of the live jobs with MariaDB's
 * read-only error (1290, SQLSTATE HY000): the test MariaDB runs without grant tables, so
 * {@code read_only} itself would hold back no connection.
 */
@RunsAlongside
class ReadOnlyDatabaseIT {
    /**
     * Stale attempts. 2,000 is four of the sweep's pages and a fifth of what one run may queue (20
     * pages of 500), so every run finds them all again and a second result queued for any attempt
     * would show at once as more results than attempts; at 10,000 (docs/cluster.md's measurement,
     * {@code -Dhourglass.readonly.jobs=10000}) one run's ceiling equals the jobs, and 8,000 more
     * deliveries cost the suite ~17 s without checking more.
     */
    static final int JOBS = Integer.getInteger("hourglass.readonly.jobs", 2_000);
    /**
     * How long writes are refused. What the window must hold is the sweep finding the stale attempts
     * run after run (every 200 ms, {@link TestNodes}) and the queued results tried again and again
     * (once a second): 10 s is some fifty sweeps and ten tries of the queue, so a sweep that queued
     * an attempt twice would push the queue past one result per attempt within its first second or
     * two. (The 30 s of docs/cluster.md's measurement is {@code -Dhourglass.readonly.ms=30000}; the
     * window cannot reach the 60 tries after which a result that fails otherwise than by the database
     * refusing it is dropped, at 30 s no more than at 10.)
     */
    static final long READ_ONLY_MS = Long.getLong("hourglass.readonly.ms", 10_000);

    String rootUrl;
    HourglassNode node;
    CallbackReceiver receiver;

    @AfterEach
    void stop() throws Exception {
        try {
            readOnly(false);
        } finally {
            if (node != null) {
                node.close();
            }
            if (receiver != null) {
                receiver.close();
            }
        }
    }

    private void sql(String... statements) throws Exception {
        try (Connection c = DriverManager.getConnection(rootUrl, "root", "");
                Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static final String REFUSED =
            " FOR EACH ROW SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1290, MESSAGE_TEXT = 'The MariaDB server is"
                    + " running with the"
                    + " --read-only option so it cannot execute this statement'";

    private void readOnly(boolean on) throws Exception {
        if (rootUrl == null) {
            return;
        }
        if (on) {
            sql(
                    "CREATE TRIGGER ro_update BEFORE UPDATE ON job_delay_task" + REFUSED,
                    "CREATE TRIGGER ro_delete BEFORE DELETE ON job_delay_task" + REFUSED,
                    "CREATE TRIGGER ro_insert BEFORE INSERT ON job_delay_task" + REFUSED);
        } else {
            sql(
                    "DROP TRIGGER IF EXISTS ro_update",
                    "DROP TRIGGER IF EXISTS ro_delete",
                    "DROP TRIGGER IF EXISTS ro_insert");
        }
    }

    private static long metric(String metrics, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:[^\\n]*\\})? ([0-9.E+-]+)$")
                .matcher(metrics);
        double sum = 0;
        while (m.find()) {
            sum += Double.parseDouble(m.group(1));
        }
        return (long) sum;
    }

    @Test
    void resultsQueuedWhileWritesAreRefusedStayOnePerAttemptAndAreEachWrittenOnce() throws Exception {
        rootUrl = EmbeddedMariaDb.newDatabase();
        receiver = new CallbackReceiver();
        NodeConfig config = TestNodes.config(rootUrl);
        config.dubbo.enabled = false; // HTTP callbacks only
        node = HourglassNode.start(config);
        ApiClient admin = new ApiClient(node.baseUrl(), TestNodes.ADMIN_TOKEN);
        ApiClient app = admin.as(admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText());
        app.put(
                "/api/v1/services/s",
                "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url()
                        + "\",\"maxInFlight\":64," // the receiver's threads: none refused
                        // attempt 2 has two minutes to end: beside other test JVMs
                        // (README, "Tests") 10,000 deliveries can outlast the default 30 s
                        + "\"timeoutMs\":120000,"
                        + "\"backoff\":{\"initialMs\":1000,\"multiplier\":1.0,\"maxMs\":1000}}");
        // due in an hour (out of memory), then made RUNNING under a node that is gone, past their
        // deadline: the attempts a crashed node left behind
        assertThat(JOBS % 1_000)
                .as("-Dhourglass.readonly.jobs: whole batches of 1,000")
                .isZero();
        for (int batch = 0; batch < JOBS / 1_000; batch++) {
            StringBuilder body = new StringBuilder("{\"jobs\":[");
            for (int i = 0; i < 1_000; i++) {
                body.append(i == 0 ? "" : ",")
                        .append("{\"service\":\"s\",\"delayMs\":3600000,\"bizKey\":\"ro-")
                        .append(batch * 1_000 + i)
                        .append("\"}");
            }
            assertThat(app.post("/api/v1/jobs/batch", body.append("]}").toString())
                            .status())
                    .isEqualTo(200);
        }
        long past = System.currentTimeMillis() - 60_000;
        sql("UPDATE job_delay_task SET state = 'RUNNING', attempts = 1, owner_node = 'gone', fire_at = " + past
                + ", due_at = " + past + ", version = version + 1");
        readOnly(true);

        long mostPending = 0;
        long mostHeap = 0;
        long until = System.currentTimeMillis() + READ_ONLY_MS;
        while (System.currentTimeMillis() < until) {
            String metrics = admin.get("/metrics").text();
            mostPending = Math.max(mostPending, metric(metrics, "hourglass_results_pending"));
            mostHeap = Math.max(mostHeap, metric(metrics, "jvm_memory_used_bytes{area=\"heap\""));
            Thread.sleep(1_000);
        }
        assertThat(receiver.received())
                .as("nothing sent: claims are writes too")
                .isEmpty();
        readOnly(false);
        long back = System.currentTimeMillis();

        await().atMost(Duration.ofSeconds(300))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> receiver.countsByJob().size() == JOBS);
        long allDelivered = System.currentTimeMillis();
        Set<String> attempts = new HashSet<>();
        for (Received r : receiver.received()) {
            assertThat(attempts.add(r.jobId() + "#" + r.attempt()))
                    .as("attempt delivered twice")
                    .isTrue();
            assertThat(r.attempt())
                    .as("attempt 1 timed out once; attempt 2 delivered")
                    .isEqualTo(2);
        }
        await().atMost(Duration.ofSeconds(120)).until(() -> finishedAtAttempt2() == JOBS);
        System.out.printf(
                "READ-ONLY: %d RUNNING attempts, writes refused %d ms: at most %d results queued, heap at most %d MB;"
                        + " all %d delivered %d ms after writes came back%n",
                JOBS, READ_ONLY_MS, mostPending, mostHeap >> 20, JOBS, allDelivered - back);
        assertThat(mostPending).as("results queued while writes were refused").isBetween(1L, (long) JOBS);
        assertThat(receiver.countsByJob().values())
                .as("each job delivered once")
                .allMatch(n -> n == 1);
    }

    /** Jobs ended FINISHED by their second attempt: the first ended once, as a TIMEOUT. */
    private int finishedAtAttempt2() throws Exception {
        try (Connection root = DriverManager.getConnection(rootUrl, "root", "");
                ResultSet rs = root.createStatement()
                        .executeQuery(
                                "SELECT COUNT(*) FROM job_delay_task_backlog WHERE state = 'FINISHED' AND attempts = 2")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
