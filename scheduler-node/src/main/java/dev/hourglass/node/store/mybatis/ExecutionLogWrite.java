package dev.hourglass.node.store.mybatis;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.apache.ibatis.session.SqlSession;

/**
 * Writes the execution-log rows of attempts that end, whole, once: one multi-row {@code INSERT} for
 * a batch of results, in plain JDBC on the session's connection, from the values of the jobs'
 * locked rows (docs/design.md, "The execution log"). A claim or a reservation used to insert the
 * row and the result to update it; the update was the costliest statement of a pull consumer's
 * acknowledgement; writing the row once took 7–20 % of MariaDB's CPU per job off the pull
 * benchmark's drain (docs/performance.md, "The execution log written once").
 *
 * <p>A row is not expected to be there: the caller sends attempts whose claim wrote
 * {@code started_at}, and rows opened by claims before V14 go to {@link ExecutionLogClose}. Should
 * one be there anyway, an open one is closed and a closed one left as it is, rather than the batch
 * failing on the key. Mixed versions are not supported (docs/operations.md, "Upgrading"), but the
 * statements that end or give back an attempt (retry, unclaim, unreserve) clear {@code started_at},
 * so a start on a job's row is always its running attempt's.
 */
final class ExecutionLogWrite {
    private static final int PER_ROW = 10;
    private static final String ROW = "(" + "?,".repeat(PER_ROW - 1) + "?)";
    private static final String OPEN_ONLY = "CASE WHEN outcome IS NULL THEN VALUES(%1$s) ELSE %1$s END";
    /** outcome last: MariaDB and MySQL assign left to right, each assignment seeing those before it. */
    private static final String CLOSE_AN_OPEN_ROW = " ON DUPLICATE KEY UPDATE fired_at = "
            + OPEN_ONLY.formatted("fired_at") + ", finished_at = " + OPEN_ONLY.formatted("finished_at")
            + ", message = " + OPEN_ONLY.formatted("message") + ", outcome = " + OPEN_ONLY.formatted("outcome");

    /** An attempt that ended: its log row as it is written. */
    record Ended(
            long jobId,
            int attempt,
            String node,
            long fireAt,
            long firedAt,
            String app,
            String service,
            long finishedAt,
            String outcome,
            String message) {}

    private ExecutionLogWrite() {}

    static void write(SqlSession s, List<Ended> rows) {
        for (int from = 0; from < rows.size(); from += JobRowInsert.MAX_ROWS_PER_STATEMENT) {
            writePart(s, rows.subList(from, Math.min(rows.size(), from + JobRowInsert.MAX_ROWS_PER_STATEMENT)));
        }
    }

    private static void writePart(SqlSession s, List<Ended> rows) {
        StringBuilder sql = new StringBuilder("INSERT INTO job_delay_task_execlog"
                + " (job_id, attempt, node, fire_at, fired_at, app, service, finished_at, outcome, message) VALUES ");
        for (int i = 0; i < rows.size(); i++) {
            sql.append(i == 0 ? "" : ",").append(ROW);
        }
        sql.append(CLOSE_AN_OPEN_ROW);
        try (PreparedStatement ps = JobRowSelect.connection(s).prepareStatement(sql.toString())) {
            ps.setQueryTimeout(JobRowInsert.STATEMENT_TIMEOUT_S);
            int p = 1;
            for (Ended r : rows) {
                ps.setLong(p++, r.jobId());
                ps.setInt(p++, r.attempt());
                ps.setString(p++, r.node());
                ps.setLong(p++, r.fireAt());
                ps.setLong(p++, r.firedAt());
                ps.setString(p++, r.app());
                ps.setString(p++, r.service());
                ps.setLong(p++, r.finishedAt());
                ps.setString(p++, r.outcome());
                ps.setString(p++, r.message());
            }
            ps.executeUpdate();
        } catch (SQLException e) {
            throw UnavailabilityTranslator.translate(e);
        }
    }
}
