package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.JobPage;
import dev.hourglass.node.core.job.JobQuery;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.store.mybatis.MyBatisJobRepository;
import dev.hourglass.node.store.mybatis.SqlFailures;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.apache.ibatis.session.SqlSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A search of ended jobs reads about one page of rows, however big the backlog: a filter that
 * matches few of its rows (a final state such as FAILED, a quiet app or service) is served by an
 * index walked in id order, not by reading the backlog in id order until a page is found.
 *
 * <p>The rows a search reads are the server's own count (the session's {@code Handler_read_*}):
 * the pool has one connection, so the repository's statements and the count share a session.
 */
@RunsAlongside
class BacklogSearchIT {
    private static final int FINISHED_ROWS = 30_000;
    /**
     * A page of 50, its look-ahead row and a few index probes (the live table's part, the
     * optimizer's dive) read about 60 rows; a search that reads the backlog in id order reads
     * 30,000. The bound sits well between the two.
     */
    private static final long MAX_ROWS_READ = 200;

    private static Database db;
    private static MyBatisJobRepository jobs;

    @BeforeAll
    static void seedABigBacklogWithAFewRareRowsAtItsEnd() throws SQLException {
        db = new Database(EmbeddedMariaDb.newDatabase(), "root", "", 1);
        jobs = new MyBatisJobRepository(db.sessions(), new SqlFailures());
        try (SqlSession s = db.sessions().openSession(false)) {
            Connection c = s.getConnection();
            try (PreparedStatement backlog = c.prepareStatement("INSERT INTO job_delay_task_backlog (id, app,"
                    + " service, shard, state, fire_at, due_at, attempts, budget_base, max_attempts, timeout_ms,"
                    + " payload, version, created_at, updated_at, ended_at)"
                    + " VALUES (?, ?, ?, 1, ?, 1, 1, 1, 0, 3, 1000, '{}', 1, 1, 1, ?)")) {
                for (long id = 1; id <= FINISHED_ROWS; id++) {
                    add(backlog, id, "big", "s", "FINISHED");
                    if (id % 1_000 == 0) {
                        backlog.executeBatch();
                    }
                }
                // the rare rows are the newest, as recent failures are: a scan in id order meets
                // them last
                add(backlog, FINISHED_ROWS + 1, "big", "s", "FAILED");
                add(backlog, FINISHED_ROWS + 2, "big", "s", "FAILED");
                add(backlog, FINISHED_ROWS + 3, "big", "s", "FAILED");
                add(backlog, FINISHED_ROWS + 4, "small", "quiet", "FAILED");
                add(backlog, FINISHED_ROWS + 5, "small", "quiet", "FAILED");
                add(backlog, FINISHED_ROWS + 6, "small", "quiet", "CANCELED");
                add(backlog, FINISHED_ROWS + 7, "big", "rare", "FINISHED");
                add(backlog, FINISHED_ROWS + 8, "big", "rare", "FINISHED");
                backlog.executeBatch();
            }
            c.commit();
            try (Statement st = c.createStatement()) {
                st.execute("ANALYZE TABLE job_delay_task_backlog");
            }
        }
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Test
    void theAdminsSearchByAFinalStateReadsOnePage() throws SQLException {
        assertThat(idsOf(new JobQuery(null, null, JobState.FAILED, null, null, null, 50, null)))
                .containsExactly(30_001L, 30_002L, 30_003L, 30_004L, 30_005L);
    }

    @Test
    void anAppsSearchByAFinalStateReadsOnePage() throws SQLException {
        assertThat(idsOf(new JobQuery("big", null, JobState.FAILED, null, null, null, 50, null)))
                .containsExactly(30_001L, 30_002L, 30_003L);
        assertThat(idsOf(new JobQuery("small", null, JobState.CANCELED, null, null, null, 50, null)))
                .containsExactly(30_006L);
        assertThat(idsOf(new JobQuery("big", null, JobState.FINISHED, null, null, null, 50, null)))
                .as("a common state: the first page in id order")
                .hasSize(50)
                .startsWith(1L, 2L, 3L)
                .endsWith(50L);
    }

    @Test
    void anAppsSearchByAQuietServiceReadsOnePage() throws SQLException {
        assertThat(idsOf(new JobQuery("big", null, null, "rare", null, null, 50, null)))
                .as("a quiet service of a big app")
                .containsExactly(30_007L, 30_008L);
        assertThat(idsOf(new JobQuery("small", null, null, "quiet", null, null, 50, null)))
                .containsExactly(30_004L, 30_005L, 30_006L);
    }

    @Test
    void aSmallAppsListReadsOnePage() throws SQLException {
        assertThat(idsOf(new JobQuery("small", null, null, null, null, null, 50, null)))
                .containsExactly(30_004L, 30_005L, 30_006L);
    }

    /** The ids of the search's first page, after checking how many rows the server read for it. */
    private static List<Long> idsOf(JobQuery query) throws SQLException {
        long before = rowsRead();
        JobPage page = jobs.search(query);
        long read = rowsRead() - before;
        System.out.println("rows read for " + query + ": " + read);
        assertThat(read)
                .as("rows the server read for %s (the backlog has %d)", query, FINISHED_ROWS + 8)
                .isLessThan(MAX_ROWS_READ)
                // the count is the session's: a new connection would have started it again
                .isGreaterThanOrEqualTo(page.items().size());
        return page.items().stream().map(Job::id).toList();
    }

    /** Rows the only connection's session has read so far, by any access path. */
    private static long rowsRead() throws SQLException {
        try (SqlSession s = db.sessions().openSession(true);
                Statement st = s.getConnection().createStatement();
                ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Handler_read%'")) {
            long sum = 0;
            while (rs.next()) {
                sum += rs.getLong(2);
            }
            return sum;
        }
    }

    private static void add(PreparedStatement backlog, long id, String app, String service, String state)
            throws SQLException {
        backlog.setLong(1, id);
        backlog.setString(2, app);
        backlog.setString(3, service);
        backlog.setString(4, state);
        backlog.setLong(5, id);
        backlog.addBatch();
    }
}
