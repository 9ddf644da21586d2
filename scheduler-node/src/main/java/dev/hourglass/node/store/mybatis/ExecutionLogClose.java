package dev.hourglass.node.store.mybatis;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.ibatis.session.SqlSession;

/**
 * Writes the outcomes of a batch of results into execution-log rows that are open: the rows a
 * cancel wrote for attempts it found under way, and those claims by nodes before V14 opened (since
 * V14 a running attempt's row is written whole when it ends: {@link ExecutionLogWrite}). One UPDATE
 * for the batch, each row's values chosen by its job id ({@code CASE job_id WHEN ...}), in plain
 * JDBC on the session's connection. One UPDATE per row, as before, was 13 % of the database's
 * time in the pull benchmark's drain (docs/performance.md, "Pull consumers"): each statement
 * parsed, planned and run for one row.
 *
 * <p>A row is closed once: the statement keeps {@code outcome IS NULL}, as the single-row one did.
 * A job's value is chosen by its id alone, so two closes of one job (two attempts, or the same
 * attempt twice) go to separate statements, in the order they were given.
 */
final class ExecutionLogClose {
    /** Each row looks its values up among the statement's (a CASE is a list): fewer than a claim's. */
    private static final int MAX_ROWS_PER_STATEMENT = 200;

    /** An attempt's outcome; {@code firedAt} null keeps the send time written before. */
    record Close(long jobId, int attempt, Long firedAt, long finishedAt, String outcome, String message) {}

    private ExecutionLogClose() {}

    static void close(SqlSession s, List<Close> closes) {
        List<Close> part = new ArrayList<>();
        Set<Long> jobs = new HashSet<>();
        for (Close c : closes) {
            if (part.size() == MAX_ROWS_PER_STATEMENT || !jobs.add(c.jobId())) {
                closePart(s, part);
                part.clear();
                jobs.clear();
                jobs.add(c.jobId());
            }
            part.add(c);
        }
        if (!part.isEmpty()) {
            closePart(s, part);
        }
    }

    private static void closePart(SqlSession s, List<Close> part) {
        String byJob = "CASE job_id" + " WHEN ? THEN ?".repeat(part.size()) + " END";
        String sql = "UPDATE job_delay_task_execlog SET finished_at = " + byJob + ", outcome = " + byJob
                + ", message = " + byJob + ", fired_at = COALESCE(" + byJob + ", fired_at)"
                + " WHERE job_id IN (" + "?,".repeat(part.size() - 1) + "?) AND attempt = " + byJob
                + " AND outcome IS NULL";
        try (PreparedStatement ps = JobRowSelect.connection(s).prepareStatement(sql)) {
            ps.setQueryTimeout(JobRowInsert.STATEMENT_TIMEOUT_S);
            int p = 1;
            for (Close c : part) {
                ps.setLong(p++, c.jobId());
                ps.setLong(p++, c.finishedAt());
            }
            for (Close c : part) {
                ps.setLong(p++, c.jobId());
                ps.setString(p++, c.outcome());
            }
            for (Close c : part) {
                ps.setLong(p++, c.jobId());
                ps.setString(p++, c.message());
            }
            for (Close c : part) {
                ps.setLong(p++, c.jobId());
                if (c.firedAt() == null) {
                    ps.setNull(p++, Types.BIGINT);
                } else {
                    ps.setLong(p++, c.firedAt());
                }
            }
            for (Close c : part) {
                ps.setLong(p++, c.jobId());
            }
            for (Close c : part) {
                ps.setLong(p++, c.jobId());
                ps.setInt(p++, c.attempt());
            }
            ps.executeUpdate();
        } catch (SQLException e) {
            throw UnavailabilityTranslator.translate(e);
        }
    }
}
