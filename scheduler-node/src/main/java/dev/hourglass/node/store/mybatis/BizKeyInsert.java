package dev.hourglass.node.store.mybatis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Takes bizKeys for their jobs ({@code INSERT IGNORE} into hg_biz_key: a key another job holds is
 * left to it), in plain JDBC on the transaction's connection. Through MyBatis a {@code <foreach>}
 * over the keys rewrote each key's placeholders with a regular expression: 4 % of the node's CPU
 * under single submits with a bizKey each (docs/performance.md, "Pull consumers").
 */
final class BizKeyInsert {
    private static final String ROW = "(?,?,?)";

    private BizKeyInsert() {}

    /**
     * Takes the keys, in the order given (sorted by the caller, so two transactions that share keys
     * lock them in the same order); returns how many were taken (the others were held).
     */
    static int take(Connection c, List<BizKeyRow> keys) throws SQLException {
        int taken = 0;
        for (int from = 0; from < keys.size(); from += JobRowInsert.MAX_ROWS_PER_STATEMENT) {
            taken += takePart(c, keys.subList(from, Math.min(keys.size(), from + JobRowInsert.MAX_ROWS_PER_STATEMENT)));
        }
        return taken;
    }

    private static int takePart(Connection c, List<BizKeyRow> keys) throws SQLException {
        StringBuilder sql = new StringBuilder("INSERT IGNORE INTO hg_biz_key (app, biz_key, job_id) VALUES ");
        for (int i = 0; i < keys.size(); i++) {
            sql.append(i == 0 ? "" : ",").append(ROW);
        }
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            ps.setQueryTimeout(JobRowInsert.STATEMENT_TIMEOUT_S);
            int p = 1;
            for (BizKeyRow k : keys) {
                ps.setString(p++, k.app);
                ps.setString(p++, k.bizKey);
                ps.setLong(p++, k.jobId);
            }
            return ps.executeUpdate();
        }
    }
}
