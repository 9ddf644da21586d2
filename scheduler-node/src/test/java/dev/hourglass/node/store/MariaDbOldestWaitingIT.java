package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.store.mybatis.JobMapper;
import dev.hourglass.node.store.mybatis.OldestWaitingRow;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.ibatis.session.SqlSession;
import org.junit.jupiter.api.Test;

/**
 * The read behind {@code hourglass_oldest_overdue_seconds} (every service's oldest waiting job,
 * read by each node every period) on embedded MariaDB 11.4, where InnoDB plans it as production
 * does: one probe of {@code idx_task_ready} per service, however long a service's backlog.
 */
@RunsAlongside
class MariaDbOldestWaitingIT {
    private static final int SERVICES = 12;
    private static final int BACKLOG = 20_000;

    @Test
    void eachServicesOldestWaitingJobCostsOneIndexProbeHoweverLongItsBacklog() throws Exception {
        try (Database db = new Database(EmbeddedMariaDb.newDatabase(), "root", "", 2);
                SqlSession s = db.sessions().openSession(false)) {
            Connection c = s.getConnection();
            Map<String, Long> oldest = seed(c);

            flushStatus(c);
            List<OldestWaitingRow> rows = s.getMapper(JobMapper.class).oldestWaiting();
            long reads = handlerReads(c);

            Map<String, Long> read = new HashMap<>();
            rows.forEach(r -> read.put(r.service, r.dueAt));
            assertThat(read).hasSize(SERVICES);
            for (int i = 0; i < SERVICES; i++) {
                assertThat(read.get("s" + i)).as("s" + i).isEqualTo(oldest.get("s" + i));
            }
            System.out.println("oldestWaiting over " + SERVICES + " services and " + 3 * BACKLOG + " waiting jobs: "
                    + reads + " rows read (handler reads)");
            assertThat(reads)
                    .as("a few reads per service, not one per waiting job (" + 3 * BACKLOG + " wait)")
                    .isLessThan(SERVICES * 10L);
            c.rollback();
        }
    }

    /**
     * {@value #SERVICES} services: s0-s2 with {@value #BACKLOG} DELAYED jobs each, due in random
     * order, s3 with RUNNING jobs only (none waits), the rest with none. The oldest due time per
     * service, null where none waits.
     */
    private static Map<String, Long> seed(Connection c) throws SQLException {
        Map<String, Long> oldest = new HashMap<>();
        try (PreparedStatement service = c.prepareStatement("INSERT INTO job_callback_service (app, name, protocol,"
                        + " max_attempts, timeout_ms, backoff_initial_ms, backoff_multiplier, backoff_max_ms, ack_mode,"
                        + " max_in_flight, created_at, updated_at) VALUES ('shop', ?, 'PULL', 3, 1000, 1000, 2.0, 60000,"
                        + " 'CONSUMER', 100, 0, 0)");
                PreparedStatement job = c.prepareStatement("INSERT INTO job_delay_task (id, app, service, shard, state,"
                        + " fire_at, due_at, attempts, budget_base, max_attempts, timeout_ms, payload, version,"
                        + " created_at, updated_at) VALUES (?, 'shop', ?, ?, ?, ?, ?, 0, 0, 3, 1000, '{}', 0, 0, 0)")) {
            for (int i = 0; i < SERVICES; i++) {
                service.setString(1, "s" + i);
                service.addBatch();
                oldest.put("s" + i, null);
            }
            service.executeBatch();
            Random random = new Random(42);
            long id = 1;
            for (int i = 0; i <= 3; i++) {
                String name = "s" + i;
                String state = i == 3 ? "RUNNING" : "DELAYED";
                for (int n = 0; n < (i == 3 ? 100 : BACKLOG); n++) {
                    long due = 1_000_000 + random.nextInt(10_000_000);
                    job.setLong(1, id++);
                    job.setString(2, name);
                    job.setInt(3, (int) (id % 64));
                    job.setString(4, state);
                    job.setLong(5, due);
                    job.setLong(6, due);
                    job.addBatch();
                    if (state.equals("DELAYED")) {
                        oldest.merge(name, due, Math::min);
                    }
                    if (id % 1_000 == 0) {
                        job.executeBatch();
                    }
                }
            }
            job.executeBatch();
        }
        c.commit();
        try (Statement st = c.createStatement()) {
            st.execute("ANALYZE TABLE job_delay_task, job_callback_service");
        }
        return oldest;
    }

    private static void flushStatus(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("FLUSH STATUS");
        }
    }

    /** The rows this session's statements read through the storage engine since the last flush. */
    private static long handlerReads(Connection c) throws SQLException {
        long total = 0;
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Handler_read%'")) {
            while (rs.next()) {
                total += rs.getLong(2);
            }
        }
        return total;
    }
}
