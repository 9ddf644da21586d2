package dev.hourglass.node.store.mybatis;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.apache.ibatis.session.SqlSession;

/**
 * Opens the execution-log rows of a reservation's attempts (the reservation is the send: each row
 * says when its job is handed out), in plain JDBC on the session's connection. Through MyBatis a
 * {@code <foreach>} over the rows rewrote each row's placeholders with a regular expression: 6 %
 * of the node's CPU under a steady pull load (docs/performance.md, "Pull consumers").
 */
final class ExecutionLogInsert {
    private static final int PER_ROW = 7;
    private static final String ROW = "(" + "?,".repeat(PER_ROW - 1) + "?)";

    /** An attempt's log row to open: handed out at {@code firedAt}. */
    record HandedOut(long jobId, int attempt, long fireAt, long firedAt, String app, String service) {}

    private ExecutionLogInsert() {}

    static void open(SqlSession s, List<HandedOut> rows, String node) {
        for (int from = 0; from < rows.size(); from += JobRowInsert.MAX_ROWS_PER_STATEMENT) {
            openPart(s, rows.subList(from, Math.min(rows.size(), from + JobRowInsert.MAX_ROWS_PER_STATEMENT)), node);
        }
    }

    private static void openPart(SqlSession s, List<HandedOut> rows, String node) {
        StringBuilder sql = new StringBuilder(
                "INSERT INTO job_delay_task_execlog (job_id, attempt, node, fire_at, fired_at, app, service) VALUES ");
        for (int i = 0; i < rows.size(); i++) {
            sql.append(i == 0 ? "" : ",").append(ROW);
        }
        try (PreparedStatement ps = JobRowSelect.connection(s).prepareStatement(sql.toString())) {
            ps.setQueryTimeout(JobRowInsert.STATEMENT_TIMEOUT_S);
            int p = 1;
            for (HandedOut r : rows) {
                ps.setLong(p++, r.jobId());
                ps.setInt(p++, r.attempt());
                ps.setString(p++, node);
                ps.setLong(p++, r.fireAt());
                ps.setLong(p++, r.firedAt());
                ps.setString(p++, r.app());
                ps.setString(p++, r.service());
            }
            ps.executeUpdate();
        } catch (SQLException e) {
            throw UnavailabilityTranslator.translate(e);
        }
    }
}
