package dev.hourglass.node.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Jobs' rows read straight from a MariaDB node's database, for checks over thousands of jobs.
 *
 * <p>They are the rows the API's {@code GET /api/v1/jobs/{id}} and {@code .../executions} answer
 * from (the live row, else the backlog's; the execution log of ended attempts, to which the API
 * adds a running attempt from the live row), without one request per job: a test's thousand
 * requests cost it seconds of a CPU the nodes under test need. A test that checks what the API
 * says about a job asks the API.
 */
public final class JobRows {
    private static final int IDS_PER_QUERY = 1_000;

    /** One row of the execution log: an attempt that ended. */
    public record Execution(int attempt, String node, long firedAt, Long finishedAt, String outcome, String message) {}

    private JobRows() {}

    /** Each job's state, from its live row or else its backlog row; a job with neither is absent. */
    private static Map<String, String> states(String jdbcUrl, Collection<String> ids) {
        Map<String, String> states = new HashMap<>();
        query(jdbcUrl, ids, "SELECT id, state FROM job_delay_task WHERE id IN ", rs -> {
            states.put(Long.toString(rs.getLong(1)), rs.getString(2));
        });
        // the backlog after the live table, and its row wins: a job that moves there in between is
        // seen in both (with its final state), never in neither. (A job retried by hand moves back
        // from the backlog: not what the callers' jobs do while they read.)
        query(jdbcUrl, ids, "SELECT id, state FROM job_delay_task_backlog WHERE id IN ", rs -> {
            states.put(Long.toString(rs.getLong(1)), rs.getString(2));
        });
        return states;
    }

    /**
     * The jobs not FINISHED, each as "id state" ("id in neither table" for a job the database does
     * not have: lost), in the order given; empty when all are.
     */
    public static List<String> notFinished(String jdbcUrl, Collection<String> ids) {
        Map<String, String> states = states(jdbcUrl, ids);
        List<String> open = new ArrayList<>();
        for (String id : ids) {
            String state = states.getOrDefault(id, "in neither the live table nor the backlog");
            if (!"FINISHED".equals(state)) {
                open.add(id + " " + state);
            }
        }
        return open;
    }

    /**
     * Each job's ended attempts by number; a job without one is absent. Not for jobs still running:
     * their attempt under way is in the live row, not here.
     */
    public static Map<String, Map<Integer, Execution>> executions(String jdbcUrl, Collection<String> ids) {
        Map<String, Map<Integer, Execution>> byJob = new HashMap<>();
        query(
                jdbcUrl,
                ids,
                "SELECT job_id, attempt, node, fired_at, finished_at, outcome, message"
                        + " FROM job_delay_task_execlog WHERE job_id IN ",
                rs -> {
                    Execution e = new Execution(
                            rs.getInt(2),
                            rs.getString(3),
                            rs.getLong(4),
                            rs.getObject(5, Long.class),
                            rs.getString(6),
                            rs.getString(7));
                    byJob.computeIfAbsent(Long.toString(rs.getLong(1)), k -> new TreeMap<>())
                            .put(e.attempt(), e);
                });
        return byJob;
    }

    private interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    private static void query(String jdbcUrl, Collection<String> ids, String sqlUpToIn, RowReader reader) {
        List<String> all = new ArrayList<>(ids);
        try (Connection c = DriverManager.getConnection(jdbcUrl, "root", "")) {
            for (int from = 0; from < all.size(); from += IDS_PER_QUERY) {
                List<String> chunk = all.subList(from, Math.min(all.size(), from + IDS_PER_QUERY));
                String marks = String.join(",", Collections.nCopies(chunk.size(), "?"));
                try (PreparedStatement s = c.prepareStatement(sqlUpToIn + "(" + marks + ")")) {
                    for (int i = 0; i < chunk.size(); i++) {
                        s.setLong(i + 1, Long.parseLong(chunk.get(i)));
                    }
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            reader.read(rs);
                        }
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading jobs' rows from " + jdbcUrl, e);
        }
    }
}
