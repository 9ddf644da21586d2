package dev.hourglass.node.store.mybatis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;

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

    /**
     * The most a statement of job rows carries, estimated from its rows' text ({@link #maxBytes}).
     * Jobs carry their payloads (64 KiB each at most by default): a group of 256 single submits or
     * a batch of results can hold more than the server takes in one statement, its {@code
     * max_allowed_packet}: 16 MiB by default on MariaDB 10.x, 64 MiB on 11.4 and MySQL 8.
     */
    static final long MAX_STATEMENT_BYTES = 4L << 20;

    /** A live row's values: the job's, then whether its service is PULL (V15's {@code pulled}). */
    private static final String LIVE_ROW = "(" + "?,".repeat(PER_ROW) + "?)";

    private JobRowInsert() {}

    /** Writes one statement of consecutive rows. */
    @FunctionalInterface
    interface PartWriter<T> {
        void write(List<T> part) throws SQLException;
    }

    /**
     * Inserts the rows into the live table, in statements of at most 1,000 rows and about {@link
     * #MAX_STATEMENT_BYTES}.
     */
    static void insertLive(Connection c, List<JobRow> rows) throws SQLException {
        Set<ServiceName> pulled = pulledServices(c, rows);
        inParts(rows, JobRowInsert::maxBytes, part -> insertPart(c, part, pulled));
    }

    /**
     * Which of the rows' services are PULL, read from their rows in the insert's transaction, once
     * for all its rows, so no caller has to know the protocol. (An {@code EXISTS} subquery per row
     * in the insert itself halved the rate of batch submits in the burst benchmark.) A service
     * deleted meanwhile is not PULL here: its job is read by the engine and dropped if it is PULL
     * again, which costs reads, never a job; a delete waits for the insert (deleteIfIdle).
     */
    private static Set<ServiceName> pulledServices(Connection c, List<JobRow> rows) throws SQLException {
        Set<ServiceName> services = new LinkedHashSet<>();
        rows.forEach(r -> services.add(new ServiceName(r.app, r.service)));
        String pairs = String.join(", ", Collections.nCopies(services.size(), "(?, ?)"));
        Set<ServiceName> pulled = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT app, name FROM job_callback_service"
                + " WHERE protocol = 'PULL' AND (app, name) IN (" + pairs + ")")) {
            ps.setQueryTimeout(STATEMENT_TIMEOUT_S);
            int p = 1;
            for (ServiceName service : services) {
                ps.setString(p++, service.app());
                ps.setString(p++, service.service());
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    pulled.add(new ServiceName(rs.getString(1), rs.getString(2)));
                }
            }
        }
        return pulled;
    }

    /**
     * Writes {@code rows} in order, in parts of at most {@link #MAX_ROWS_PER_STATEMENT} rows and
     * {@link #MAX_STATEMENT_BYTES} by {@code maxBytes}; a row larger than that goes alone.
     */
    static <T> void inParts(List<T> rows, ToLongFunction<T> maxBytes, PartWriter<T> writer) throws SQLException {
        int from = 0;
        long bytes = 0;
        for (int i = 0; i < rows.size(); i++) {
            long row = maxBytes.applyAsLong(rows.get(i));
            if (i > from && (i - from == MAX_ROWS_PER_STATEMENT || bytes + row > MAX_STATEMENT_BYTES)) {
                writer.write(rows.subList(from, i));
                from = i;
                bytes = 0;
            }
            bytes += row;
        }
        if (from < rows.size()) {
            writer.write(rows.subList(from, rows.size()));
        }
    }

    /**
     * At most what a job row takes in a statement: its text columns at 3 bytes per Java char
     * (UTF-8 takes up to 3 for a char, 4 for a pair), and a bound for the rest.
     */
    static long maxBytes(JobRow r) {
        long chars = length(r.payload)
                + length(r.attributes)
                + length(r.lastError)
                + length(r.bizKey)
                + length(r.app)
                + length(r.service)
                + length(r.ownerNode)
                + length(r.claimToken);
        return 3 * chars + 256;
    }

    static long length(String s) {
        return s == null ? 0 : s.length();
    }

    private static void insertPart(Connection c, List<JobRow> rows, Set<ServiceName> pulled) throws SQLException {
        StringBuilder sql = new StringBuilder(96 + rows.size() * (LIVE_ROW.length() + 1));
        sql.append("INSERT INTO job_delay_task (").append(COLUMNS).append(", pulled) VALUES ");
        for (int i = 0; i < rows.size(); i++) {
            sql.append(i == 0 ? "" : ",").append(LIVE_ROW);
        }
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            ps.setQueryTimeout(STATEMENT_TIMEOUT_S);
            int p = 1;
            for (JobRow r : rows) {
                p = bind(ps, p, r);
                ps.setBoolean(p++, pulled.contains(new ServiceName(r.app, r.service)));
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
