package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.timeindex.IndexEntry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The loader's read of due jobs, in plain JDBC: one part per shard, each in (due_at, id) order on
 * idx_task_shard_due (shard, state, pulled, due_at; InnoDB appends id), so no part sorts and each
 * stops at its LIMIT. {@code pulled = FALSE} is part of the range: jobs of PULL services are never
 * read, however many are ready (V15; before it the NOT IN below read each one's row to leave it
 * out: every catch-up sweep read every ready PULL job, docs/design.md "The engine leaves PULL jobs
 * alone"). The services left out (the PULL services, for jobs a node before V15 inserted; paused
 * or saturated ones) or read alone are one list of (app, service) pairs per part.
 *
 * <p>Through MyBatis the statement was a foreach over the shards with a foreach over the services
 * left out inside it: with 64 shards and ten PULL services, 1,400 parameters, each bound and
 * mapped by reflection and each part of the text filtered by a regular expression. Profiled under
 * a steady pull load, the two reads a second (the window's extension and the catch-up sweep) took
 * a fifth of the node's CPU (docs/performance.md, "Pull consumers").
 */
final class DueRowSelect {
    private DueRowSelect() {}

    /**
     * Up to {@code limitPerShard} DELAYED jobs of each shard, due after its cursor and before
     * {@code before}, of none of the services in {@code skip} and, unless {@code only} is empty,
     * only of those in it.
     */
    static List<IndexEntry> loadDue(
            Connection c,
            List<ShardCursor> cursors,
            long before,
            int limitPerShard,
            List<ServiceName> skip,
            List<ServiceName> only) {
        String part = part(skip, only);
        StringBuilder sql = new StringBuilder(cursors.size() * (part.length() + 12));
        for (int i = 0; i < cursors.size(); i++) {
            sql.append(i == 0 ? "" : " UNION ALL ").append(part);
        }
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            ps.setQueryTimeout(JobRowInsert.STATEMENT_TIMEOUT_S);
            int p = 1;
            for (ShardCursor cursor : cursors) {
                ps.setInt(p++, cursor.shard());
                ps.setLong(p++, cursor.afterDue());
                ps.setLong(p++, before);
                ps.setLong(p++, cursor.afterDue());
                ps.setLong(p++, cursor.afterId());
                p = setPairs(ps, p, skip);
                p = setPairs(ps, p, only);
                ps.setInt(p++, limitPerShard);
            }
            List<IndexEntry> due = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    due.add(new IndexEntry(
                            rs.getLong(1),
                            rs.getLong(2),
                            Job.serviceKey(rs.getString(3), rs.getString(4)),
                            rs.getInt(5)));
                }
            }
            return due;
        } catch (SQLException e) {
            throw UnavailabilityTranslator.translate(e);
        }
    }

    /** One shard's part, its parameters in the order {@link #loadDue} sets them. */
    private static String part(List<ServiceName> skip, List<ServiceName> only) {
        StringBuilder part = new StringBuilder(
                "(SELECT id, due_at, app, service, shard FROM job_delay_task WHERE shard = ? AND state = 'DELAYED'"
                        + " AND pulled = FALSE AND due_at >= ? AND due_at < ? AND (due_at > ? OR id > ?)");
        if (!skip.isEmpty()) {
            part.append(" AND (app, service) NOT IN ").append(pairs(skip.size()));
        }
        if (!only.isEmpty()) {
            part.append(" AND (app, service) IN ").append(pairs(only.size()));
        }
        return part.append(" ORDER BY due_at, id LIMIT ?)").toString();
    }

    private static String pairs(int n) {
        return "(" + String.join(", ", Collections.nCopies(n, "(?, ?)")) + ")";
    }

    private static int setPairs(PreparedStatement ps, int p, List<ServiceName> services) throws SQLException {
        for (ServiceName s : services) {
            ps.setString(p++, s.app());
            ps.setString(p++, s.service());
        }
        return p;
    }
}
