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
     * The most a statement carries, estimated from its rows' text. Ending jobs carry their payloads
     * (64 KiB each at most by default, and a batch of results holds up to 500), and the server
     * refuses a statement over its {@code max_allowed_packet}: 16 MiB by default on MariaDB 10.x,
     * 64 MiB on 11.4 and MySQL 8.
     */
    static final long MAX_STATEMENT_BYTES = 4L << 20;

    /**
     * Writes the ended jobs (in id order, as they were locked) to the backlog, at {@code now}, in
     * statements of at most 1,000 rows and about {@link #MAX_STATEMENT_BYTES}; a row larger than
     * that goes alone.
     */
    static void insert(SqlSession s, List<Ending> endings, long now) {
        Connection c = JobRowSelect.connection(s);
        try {
            int from = 0;
            long bytes = 0;
            for (int i = 0; i < endings.size(); i++) {
                long row = maxBytes(endings.get(i));
                if (i > from
                        && (i - from == JobRowInsert.MAX_ROWS_PER_STATEMENT || bytes + row > MAX_STATEMENT_BYTES)) {
                    insertPart(c, endings.subList(from, i), now);
                    from = i;
                    bytes = 0;
                }
                bytes += row;
            }
            if (from < endings.size()) {
                insertPart(c, endings.subList(from, endings.size()), now);
            }
        } catch (SQLException e) {
            throw UnavailabilityTranslator.translate(e);
        }
    }

    /**
     * At most what an ending row takes in a statement: its text columns at 3 bytes per Java char
     * (UTF-8 takes up to 3 for a char, 4 for a pair), and a bound for the rest.
     */
    private static long maxBytes(Ending e) {
        JobRow r = e.locked();
        long chars = length(r.payload)
                + length(r.attributes)
                + length(r.lastError)
                + length(e.message())
                + length(r.bizKey)
                + length(r.app)
                + length(r.service)
                + length(r.ownerNode)
                + length(r.claimToken);
        return 3 * chars + 256;
    }

    private static long length(String s) {
        return s == null ? 0 : s.length();
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
