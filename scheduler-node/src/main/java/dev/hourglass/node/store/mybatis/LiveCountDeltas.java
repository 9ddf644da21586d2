package dev.hourglass.node.store.mybatis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one transaction changes in the live-job counts, summed per (app, service, state) and
 * written as a few {@code hg_live_count_delta} rows in that same transaction (V5__live_counts.sql):
 * a claim of 500 jobs of one service is two rows, not a thousand. Not thread-safe; one per
 * transaction attempt (a retried transaction starts a new one).
 */
final class LiveCountDeltas {
    private final Map<String, CountDeltaRow> byKey = new TreeMap<>();

    /** A live job of {@code app}/{@code service} appeared in {@code state}. */
    void added(String app, String service, String state) {
        add(app, service, state, 1);
    }

    /** A live job of {@code app}/{@code service} in {@code state} left the live table. */
    void removed(String app, String service, String state) {
        add(app, service, state, -1);
    }

    /** A live job moved from one state to another. */
    void moved(String app, String service, String from, String to) {
        removed(app, service, from);
        added(app, service, to);
    }

    void add(String app, String service, String state, long delta) {
        // NUL cannot appear in a name, so the key is unambiguous
        byKey.computeIfAbsent(app + '\0' + service + '\0' + state, k -> new CountDeltaRow(app, service, state)).delta +=
                delta;
    }

    /** The sums that are not zero, in (app, service, state) order. */
    List<CountDeltaRow> nonZero() {
        List<CountDeltaRow> rows = new ArrayList<>(byKey.size());
        for (CountDeltaRow r : byKey.values()) {
            if (r.delta != 0) {
                rows.add(r);
            }
        }
        return rows;
    }

    /**
     * {@link #writeTo(JobMapper)} in plain JDBC on the transaction's connection: the submit path
     * writes its deltas once per group commit, and MyBatis building this small statement cost as
     * much CPU as inserting the group's jobs (profiled).
     */
    void writeTo(Connection c) throws SQLException {
        List<CountDeltaRow> rows = nonZero();
        if (rows.isEmpty()) {
            return;
        }
        StringBuilder sql = new StringBuilder("INSERT INTO hg_live_count_delta (app, service, state, delta) VALUES ");
        for (int i = 0; i < rows.size(); i++) {
            sql.append(i == 0 ? "(?,?,?,?)" : ",(?,?,?,?)");
        }
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            ps.setQueryTimeout(JobRowInsert.STATEMENT_TIMEOUT_S);
            int p = 1;
            for (CountDeltaRow r : rows) {
                ps.setString(p++, r.app);
                ps.setString(p++, r.service);
                ps.setString(p++, r.state);
                ps.setLong(p++, r.delta);
            }
            ps.executeUpdate();
        }
    }

    /** Appends the non-zero sums; call last, after the statements they describe. */
    void writeTo(JobMapper m) {
        List<CountDeltaRow> rows = nonZero();
        if (!rows.isEmpty()) {
            m.appendCountDeltas(rows);
        }
    }
}
