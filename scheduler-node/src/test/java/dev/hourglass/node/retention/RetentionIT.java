package dev.hourglass.node.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Retention in a running cluster: two nodes on one MariaDB and one real ZooKeeper. Only the master
 * deletes (its counters move, the other's stay at 0); old rows go, recent and open ones stay; when
 * the master leaves, the new master takes the duty over.
 */
@RunsAlongside
class RetentionIT {
    private static final long DAY = RetentionSettings.DAY_MS;
    private static final AtomicLong IDS = new AtomicLong(1_000_000);

    TestingServer zookeeper;
    String jdbcUrl;
    final List<HourglassNode> nodes = new ArrayList<>();

    @BeforeEach
    void cluster() throws Exception {
        zookeeper = new TestingServer(true);
        jdbcUrl = EmbeddedMariaDb.newDatabase();
        String root = "/hg-retention-" + System.nanoTime();
        for (int i = 0; i < 2; i++) {
            NodeConfig c = TestNodes.config(jdbcUrl);
            c.cluster.zkConnect = zookeeper.getConnectString();
            c.cluster.zkRoot = root;
            c.retention.intervalMs = 1_000;
            c.retention.batchSize = 40;
            c.retention.batchPauseMs = 10;
            c.dubbo.enabled = false; // HTTP only
            nodes.add(TestNodes.start(c));
        }
    }

    @AfterEach
    void stop() throws Exception {
        nodes.forEach(HourglassNode::close);
        zookeeper.close();
        ZooKeeperLeftovers.delete();
    }

    @Test
    void onlyTheMasterDeletesAndANewMasterTakesOver() throws Exception {
        long now = System.currentTimeMillis();
        List<Long> oldJobs = finalJobs(now - 31 * DAY, 100);
        List<Long> recentJobs = finalJobs(now - 29 * DAY, 10);
        List<Long> oldAttempts = attempts(now - 8 * DAY, 100, true);
        List<Long> recentAttempts = attempts(now - 6 * DAY, 10, true);
        List<Long> openAttempts = attempts(now - 300 * DAY, 10, false);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> count("job_delay_task_backlog", oldJobs) == 0
                        && count("job_delay_task_execlog", oldAttempts) == 0);
        assertThat(count("hg_biz_key", oldJobs)).isZero();
        assertThat(count("job_delay_task_execlog", oldJobs)).isZero();
        assertThat(count("job_delay_task_backlog", recentJobs)).isEqualTo(10);
        assertThat(count("hg_biz_key", recentJobs)).isEqualTo(10);
        assertThat(count("job_delay_task_execlog", recentJobs))
                .as("a job kept 30 days keeps its attempts only the log's 7")
                .isZero();
        assertThat(count("job_delay_task_execlog", recentAttempts)).isEqualTo(10);
        assertThat(count("job_delay_task_execlog", openAttempts))
                .as("open attempts are never deleted")
                .isEqualTo(10);

        int master = masterIndex();
        int other = 1 - master;
        assertThat(deleted(master, "job_delay_task_backlog")).isEqualTo(100);
        assertThat(deleted(master, "hg_biz_key")).isEqualTo(100);
        assertThat(deleted(master, "job_delay_task_execlog"))
                .as("100 of old jobs, 100 old on their own, 10 old of jobs still kept")
                .isEqualTo(210);
        assertThat(deleted(other, "job_delay_task_backlog"))
                .as("the other node deleted nothing")
                .isZero();
        assertThat(deleted(other, "job_delay_task_execlog")).isZero();

        HourglassNode survivor = nodes.get(other);
        nodes.remove(master).close();
        await().atMost(Duration.ofSeconds(20)).until(() -> survivor.nodeId().equals(masterOf(survivor)));
        List<Long> later = finalJobs(now - 40 * DAY, 30);
        await().atMost(Duration.ofSeconds(20)).until(() -> count("job_delay_task_backlog", later) == 0);
        assertThat(deleted(0, "job_delay_task_backlog")).isEqualTo(30);
    }

    private int masterIndex() {
        String master = masterOf(nodes.get(0));
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).nodeId().equals(master)) {
                return i;
            }
        }
        throw new AssertionError("no master among " + nodes.size() + " nodes: " + master);
    }

    private static String masterOf(HourglassNode node) {
        return new ApiClient(node.baseUrl(), TestNodes.ADMIN_TOKEN)
                .get("/api/v1/cluster")
                .json()
                .path("master")
                .asText(null);
    }

    /** {@code hourglass_retention_deleted_rows_total{table=...}} in node {@code i}'s /metrics. */
    private long deleted(int i, String table) {
        String text =
                new ApiClient(nodes.get(i).baseUrl(), null).get("/metrics").text();
        Matcher m = Pattern.compile("(?m)^hourglass_retention_deleted_rows_total\\{table=\"" + table + "\"} (\\S+)$")
                .matcher(text);
        assertThat(m.find()).as("the counter of " + table + " is exported").isTrue();
        return (long) Double.parseDouble(m.group(1));
    }

    /** Final jobs that ended at {@code endedAt}, each with one attempt and a bizKey. */
    private List<Long> finalJobs(long endedAt, int n) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl, "root", "");
                PreparedStatement job = c.prepareStatement("INSERT INTO job_delay_task_backlog (id, app, service,"
                        + " biz_key, shard, state, fire_at, due_at, attempts, budget_base, max_attempts, timeout_ms,"
                        + " payload, version, created_at, updated_at, ended_at)"
                        + " VALUES (?, 'shop', 's', ?, 1, 'FINISHED', ?, ?, 1, 0, 3, 1000, '{}', 1, ?, ?, ?)");
                PreparedStatement log = c.prepareStatement("INSERT INTO job_delay_task_execlog"
                        + " (job_id, attempt, node, fire_at, fired_at, finished_at, outcome)"
                        + " VALUES (?, 1, 'n', ?, ?, ?, 'SUCCESS')");
                PreparedStatement key =
                        c.prepareStatement("INSERT INTO hg_biz_key (app, biz_key, job_id) VALUES ('shop', ?, ?)")) {
            for (int i = 0; i < n; i++) {
                long id = IDS.incrementAndGet();
                ids.add(id);
                job.setLong(1, id);
                job.setString(2, "key-" + id);
                for (int p = 3; p <= 7; p++) {
                    job.setLong(p, endedAt);
                }
                job.addBatch();
                log.setLong(1, id);
                log.setLong(2, endedAt);
                log.setLong(3, endedAt);
                log.setLong(4, endedAt);
                log.addBatch();
                key.setString(1, "key-" + id);
                key.setLong(2, id);
                key.addBatch();
            }
            // one transaction, as the node writes a final job and its key: a sweep between the
            // job rows and their keys deleted a batch of jobs and left their keys behind (40, once)
            c.setAutoCommit(false);
            job.executeBatch();
            log.executeBatch();
            key.executeBatch();
            c.commit();
        }
        return ids;
    }

    /** Attempts fired at {@code at}, finished then or still open. */
    private List<Long> attempts(long at, int n, boolean finished) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl, "root", "");
                PreparedStatement log = c.prepareStatement(
                        "INSERT INTO job_delay_task_execlog"
                                + " (job_id, attempt, node, fire_at, fired_at, finished_at, outcome) VALUES (?, 1, 'n', ?, ?, ?, ?)")) {
            for (int i = 0; i < n; i++) {
                long id = IDS.incrementAndGet();
                ids.add(id);
                log.setLong(1, id);
                log.setLong(2, at);
                log.setLong(3, at);
                log.setObject(4, finished ? at : null);
                log.setString(5, finished ? "SUCCESS" : null);
                log.addBatch();
            }
            log.executeBatch();
        }
        return ids;
    }

    private long count(String table, List<Long> jobIds) throws SQLException {
        String column = table.equals("job_delay_task_backlog") ? "id" : "job_id";
        StringBuilder in = new StringBuilder();
        jobIds.forEach(id -> in.append(in.length() == 0 ? "" : ",").append(id));
        try (Connection c = DriverManager.getConnection(jdbcUrl, "root", "");
                ResultSet rs = c.createStatement()
                        .executeQuery("SELECT COUNT(*) FROM " + table + " WHERE " + column + " IN (" + in + ")")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
