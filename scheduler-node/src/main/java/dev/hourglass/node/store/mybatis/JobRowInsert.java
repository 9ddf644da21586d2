package dev.hourglass.node.store.mybatis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/**
 * The multi-row insert of new jobs, in plain JDBC on the session's connection (so inside its
 * transaction). Through MyBatis, a {@code <foreach>} over the rows evaluated each row's 22
 * parameters by reflection and rebuilt the statement for every call: profiled under single submits
 * stored in groups, that was three quarters of the writer's CPU (docs/design.md, "Where the time
 * goes"). Here the statement is a string of placeholders and the values are set directly.
 */
final class JobRowInsert {
    static final String COLUMNS = "id, app, service, biz_key, shard, state, fire_at, due_at, expire_at, attempts,"
            + " budget_base, max_attempts, timeout_ms, expire_after_ms, payload, attributes, last_error, owner_node,"
            + " claim_token, version, created_at, updated_at";
    static final int PER_ROW = 22;
    /** The statement timeout MyBatis gives its own statements (Database), in seconds. */
    static final int STATEMENT_TIMEOUT_S = 30;
    /** Rows per statement: MariaDB and MySQL take at most 65,535 placeholders in one. */
    static final int MAX_ROWS_PER_STATEMENT = 1_000;

    private static final String ROW = "(" + "?,".repeat(PER_ROW - 1) + "?)";

    private JobRowInsert() {}

    /** Inserts the rows into {@code table} (live or backlog), in statements of at most 1,000 rows. */
    static void insert(Connection c, String table, List<JobRow> rows) throws SQLException {
        for (int from = 0; from < rows.size(); from += MAX_ROWS_PER_STATEMENT) {
            insertPart(c, table, rows.subList(from, Math.min(rows.size(), from + MAX_ROWS_PER_STATEMENT)));
        }
    }

    private static void insertPart(Connection c, String table, List<JobRow> rows) throws SQLException {
        StringBuilder sql = new StringBuilder(96 + rows.size() * (ROW.length() + 1));
        sql.append("INSERT INTO ").append(table).append(" (").append(COLUMNS).append(") VALUES ");
        for (int i = 0; i < rows.size(); i++) {
            sql.append(i == 0 ? "" : ",").append(ROW);
        }
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            ps.setQueryTimeout(STATEMENT_TIMEOUT_S);
            int p = 1;
            for (JobRow r : rows) {
                p = bind(ps, p, r);
            }
            ps.executeUpdate();
        }
    }

    /** Sets the 22 values of {@code r} in the order of {@link #COLUMNS} from {@code p}; the next index. */
    static int bind(PreparedStatement ps, int p, JobRow r) throws SQLException {
        ps.setLong(p++, r.id);
        ps.setString(p++, r.app);
        ps.setString(p++, r.service);
        ps.setString(p++, r.bizKey);
        ps.setInt(p++, r.shard);
        ps.setString(p++, r.state);
        ps.setLong(p++, r.fireAt);
        ps.setLong(p++, r.dueAt);
        setLong(ps, p++, r.expireAt);
        ps.setInt(p++, r.attempts);
        ps.setInt(p++, r.budgetBase);
        ps.setInt(p++, r.maxAttempts);
        ps.setLong(p++, r.timeoutMs);
        setLong(ps, p++, r.expireAfterMs);
        ps.setString(p++, r.payload);
        ps.setString(p++, r.attributes);
        ps.setString(p++, r.lastError);
        ps.setString(p++, r.ownerNode);
        ps.setString(p++, r.claimToken);
        ps.setInt(p++, r.version);
        ps.setLong(p++, r.createdAt);
        ps.setLong(p++, r.updatedAt);
        return p;
    }

    private static void setLong(PreparedStatement ps, int index, Long value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.BIGINT);
        } else {
            ps.setLong(index, value);
        }
    }
}
