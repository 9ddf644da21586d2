package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.store.mybatis.IdList;
import dev.hourglass.node.store.mybatis.RetentionMapper;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ibatis.mapping.BoundSql;
import org.apache.ibatis.mapping.ParameterMapping;
import org.apache.ibatis.session.SqlSession;
import org.junit.jupiter.api.Test;

/**
 * Retention's storage on embedded MariaDB 11.4; and there, where InnoDB's plans and locks are the
 * production ones, that every statement is driven by an index and that a manual retry racing a
 * retention batch is settled whole.
 */
@RunsAlongside
class MariaDbRetentionIT extends RetentionContract {
    @Override
    protected Database open() {
        return new Database(EmbeddedMariaDb.newDatabase(), "root", "", 4);
    }

    @Test
    void everyRetentionStatementIsAnIndexRangeNeverATableScan() throws Exception {
        try (Database big = new Database(EmbeddedMariaDb.newDatabase(), "root", "", 2);
                SqlSession s = big.sessions().openSession(false)) {
            Connection c = s.getConnection();
            seed(c, 20_000);
            List<Long> ids = new ArrayList<>();
            StringBuilder keys = new StringBuilder();
            for (long id = 1; id <= 1_000; id++) {
                ids.add(id);
                keys.append(id == 1 ? "" : ",").append('(').append(id).append(",1)");
            }
            long cutoff = 10_000;
            Map<String, String> expectedIndex = Map.of(
                    "finishedBefore", "idx_execlog_finished",
                    "deleteExecutions", "PRIMARY",
                    "lockFinalEndedBefore", "idx_backlog_ended_at",
                    "deleteBizKeysOf", "idx_biz_key_job",
                    "deleteExecutionsOf", "PRIMARY",
                    "deleteFinal", "PRIMARY");
            Map<String, Object> params = new HashMap<>();
            params.put("cutoff", cutoff);
            params.put("limit", 1_000);
            params.put("keys", keys.toString());
            params.put("ids", IdList.of(ids));
            for (var e : expectedIndex.entrySet()) {
                BoundSql sql = big.sessions()
                        .getConfiguration()
                        .getMappedStatement(RetentionMapper.class.getName() + "." + e.getKey())
                        .getBoundSql(params);
                Map<String, String> plan = explain(c, sql, params);
                System.out.println("EXPLAIN " + e.getKey() + ": " + abbreviated(sql.getSql()) + "\n  -> " + plan);
                assertThat(plan.get("type")).as(e.getKey() + " scans no table").isIn("range", "ref", "eq_ref");
                assertThat(plan.get("key")).as(e.getKey() + " uses its index").isEqualTo(e.getValue());
            }
            c.rollback();
        }
    }

    @Test
    void aManualRetryRacingARetentionBatchIsSettledWhole() throws Exception {
        Job failed = failed(OLD, "raced");
        CompletableFuture<Optional<Job>> revive;
        try (SqlSession batch = db.sessions().openSession(false)) {
            // the retention batch, as MyBatisRetentionStore runs it, stopped before its commit
            RetentionMapper m = batch.getMapper(RetentionMapper.class);
            List<Long> locked = m.lockFinalEndedBefore(CUTOFF, 10);
            assertThat(locked).containsExactly(failed.id());
            IdList ids = IdList.of(locked);
            m.deleteBizKeysOf(ids);
            m.deleteExecutionsOf(ids);
            m.deleteFinal(ids);

            revive = CompletableFuture.supplyAsync(() -> mutations.revive(failed.id(), APP, RECENT, 3, RECENT));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> revive.isDone()
                            || !longs("SELECT 1 FROM information_schema.innodb_trx" + " WHERE trx_state = 'LOCK WAIT'")
                                    .isEmpty());
            batch.commit();
        }
        Optional<Job> revived = revive.get(10, TimeUnit.SECONDS);
        assertThat(revived)
                .as("the retention batch locked the job first: the retry finds nothing")
                .isEmpty();
        assertThat(jobs.find(failed.id()))
                .as("no live job without its bizKey and its history")
                .isEmpty();
        assertThat(bizKeyOwner("raced")).isNull();
    }

    private static void seed(Connection c, int n) throws SQLException {
        try (PreparedStatement log = c.prepareStatement(
                        "INSERT INTO job_delay_task_execlog"
                                + " (job_id, attempt, node, fire_at, fired_at, finished_at, outcome) VALUES (?, 1, 'n', ?, ?, ?, ?)");
                PreparedStatement backlog = c.prepareStatement("INSERT INTO job_delay_task_backlog (id, app, service,"
                        + " biz_key, shard, state, fire_at, due_at, attempts, budget_base, max_attempts, timeout_ms,"
                        + " payload, version, created_at, updated_at, ended_at)"
                        + " VALUES (?, 'a', 's', ?, 1, 'FINISHED', 1, 1, 1, 0, 3, 1000, '{}', 1, 1, 1, ?)");
                PreparedStatement key =
                        c.prepareStatement("INSERT INTO hg_biz_key (app, biz_key, job_id) VALUES ('a', ?, ?)")) {
            for (int i = 1; i <= n; i++) {
                log.setLong(1, i);
                log.setLong(2, i);
                log.setLong(3, i);
                if (i % 10 == 0) {
                    log.setNull(4, java.sql.Types.BIGINT);
                    log.setNull(5, java.sql.Types.VARCHAR);
                } else {
                    log.setLong(4, i);
                    log.setString(5, "SUCCESS");
                }
                log.addBatch();
                backlog.setLong(1, i);
                backlog.setString(2, "k" + i);
                backlog.setLong(3, i);
                backlog.addBatch();
                key.setString(1, "k" + i);
                key.setLong(2, i);
                key.addBatch();
                if (i % 1_000 == 0) {
                    log.executeBatch();
                    backlog.executeBatch();
                    key.executeBatch();
                }
            }
        }
        c.commit();
        try (Statement st = c.createStatement()) {
            st.execute("ANALYZE TABLE job_delay_task_execlog, job_delay_task_backlog, hg_biz_key");
        }
    }

    /** The first row of EXPLAIN for the statement exactly as MyBatis sends it. */
    private static Map<String, String> explain(Connection c, BoundSql sql, Map<String, Object> params)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql.getSql())) {
            int i = 1;
            for (ParameterMapping p : sql.getParameterMappings()) {
                ps.setObject(i++, params.get(p.getProperty()));
            }
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                Map<String, String> row = new java.util.LinkedHashMap<>();
                if (rs.next()) {
                    for (int col = 1; col <= md.getColumnCount(); col++) {
                        row.put(md.getColumnLabel(col), rs.getString(col));
                    }
                }
                return row;
            }
        }
    }

    private static String abbreviated(String sql) {
        String flat = sql.replaceAll("\\s+", " ");
        return flat.length() > 140 ? flat.substring(0, 140) + "..." : flat;
    }
}
