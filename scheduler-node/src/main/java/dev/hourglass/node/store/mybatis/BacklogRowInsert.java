package dev.hourglass.node.store.mybatis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.apache.ibatis.session.SqlSession;

/**
 * Ends jobs whose last attempt was decided into the backlog: a multi-row {@code INSERT ... VALUES}
 * of the rows the result transaction read under its lock ({@link LiveJobs#lockWhole}), in plain
 * JDBC on the session's connection. It was an {@code INSERT ... SELECT} from the live table, which
 * MariaDB 11.4 ran at about three times the cost of the same rows as values; in a steady pull run it
 * was the database's costliest statement (docs/performance.md, "Results write the backlog from
 * values").
 *
 * <p>It changes the jobs' state, RUNNING to the final state each row is given: the caller passes
 * only jobs it holds locked with that attempt RUNNING, and deletes them from the live table in the
 * same transaction ({@code JobMapper.deleteEnded}, conditional on RUNNING). JobStatementsTest
 * checks the states its caller writes here.
 */
final class BacklogRowInsert {
    /** The ended job's values, then when it ended. */
    private static final String ROW = "(" + "?,".repeat(JobRowInsert.PER_ROW) + "?)";

    /** A job leaving the live table: its row as locked, the state it ends in, the message kept. */
    record Ending(JobRow locked, String state, String message) {}

    private BacklogRowInsert() {}

    /**
     * Writes the ended jobs (in id order, as they were locked) to the backlog, at {@code now}, in
     * statements of at most 1,000 rows and about {@link JobRowInsert#MAX_STATEMENT_BYTES}: ending
     * jobs carry their payloads, and a batch of results holds up to 500.
     */
    static void insert(SqlSession s, List<Ending> endings, long now) {
        Connection c = JobRowSelect.connection(s);
        try {
            JobRowInsert.inParts(
                    endings,
                    e -> JobRowInsert.maxBytes(e.locked()) + 3 * JobRowInsert.length(e.message()),
                    part -> insertPart(c, part, now));
        } catch (SQLException e) {
            throw UnavailabilityTranslator.translate(e);
        }
    }

    private static void insertPart(Connection c, List<Ending> endings, long now) throws SQLException {
        StringBuilder sql = new StringBuilder(128 + endings.size() * (ROW.length() + 1));
        sql.append("INSERT INTO job_delay_task_backlog (")
                .append(JobRowInsert.COLUMNS)
                .append(", ended_at) VALUES ");
        for (int i = 0; i < endings.size(); i++) {
            sql.append(i == 0 ? "" : ",").append(ROW);
        }
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            ps.setQueryTimeout(JobRowInsert.STATEMENT_TIMEOUT_S);
            int p = 1;
            for (Ending e : endings) {
                p = JobRowInsert.bind(ps, p, ended(e, now));
                ps.setLong(p++, now);
            }
            ps.executeUpdate();
        }
    }

    /**
     * The backlog row of an ending job: as locked, in its final state, with the message as its last
     * error (none keeps the one before), one version on, updated now. The locked row is this
     * transaction's own read, and the job leaves the live table in it, so it is changed in place.
     */
    private static JobRow ended(Ending e, long now) {
        JobRow r = e.locked();
        r.state = e.state();
        if (e.message() != null) {
            r.lastError = e.message();
        }
        r.version = r.version + 1;
        r.updatedAt = now;
        return r;
    }
}
