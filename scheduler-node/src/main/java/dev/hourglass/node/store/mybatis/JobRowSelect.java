package dev.hourglass.node.store.mybatis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.ibatis.session.SqlSession;

/**
 * The reads of live job rows on every job's way, in plain JDBC on the session's connection (so
 * inside its transaction, seeing its own writes): the rows a claim or a reservation just took (by
 * its token), the jobs a batch of results is for, and the locks every change of state takes first.
 * Through MyBatis, each column was mapped by reflection: profiled under a steady pull load, the
 * results' read alone was 8 % of the node's CPU, the locks 3 % (docs/performance.md, "Pull
 * consumers"). The columns are the mapper's and {@link JobRowInsert}'s, read by position.
 */
final class JobRowSelect {
    private static final String LIVE = "SELECT " + JobRowInsert.COLUMNS + " FROM job_delay_task WHERE ";

    private JobRowSelect() {}

    /** The live rows of {@code ids} (those not live are not in the list). */
    static List<JobRow> liveByIds(SqlSession s, IdList ids) {
        return query(s, LIVE + "id IN (" + ids.getSql() + ")", null, JobRowSelect::row);
    }

    /** The live rows of {@code ids} that the statement which wrote {@code token} took. */
    static List<JobRow> byToken(SqlSession s, IdList ids, String token) {
        return query(s, LIVE + "claim_token = ? AND id IN (" + ids.getSql() + ")", token, JobRowSelect::row);
    }

    /**
     * Locks the live ones of {@code ids} in id order (the order every transaction here takes them
     * in) and tells what a conditional change that follows will find.
     */
    static List<LockedJobRow> lockLive(SqlSession s, IdList ids) {
        String sql = "SELECT id, app, service, state, attempts, owner_node, version FROM job_delay_task"
                + byPrimaryKey(s) + " WHERE id IN (" + ids.getSql() + ") ORDER BY id FOR UPDATE";
        return query(s, sql, null, JobRowSelect::lockedRow);
    }

    /**
     * Locks the live ones of {@code ids} like {@link #lockLive}, and reads their whole rows: for a
     * batch of results, whose ending jobs are written to the backlog from these values
     * ({@link BacklogRowInsert}), and whose attempts' log rows from these and {@code started_at}
     * ({@link ExecutionLogWrite}).
     */
    static List<JobRow> lockLiveWhole(SqlSession s, IdList ids) {
        String sql = "SELECT " + JobRowInsert.COLUMNS + ", started_at FROM job_delay_task" + byPrimaryKey(s)
                + " WHERE id IN (" + ids.getSql() + ") ORDER BY id FOR UPDATE";
        return query(s, sql, null, rs -> {
            JobRow r = row(rs);
            r.startedAt = nullableLong(rs, 23); // the column after COLUMNS' 22
            return r;
        });
    }

    /**
     * The hint that makes MariaDB and MySQL find a list of ids through the primary key in a locking
     * statement; none on H2, which has no such hint and locks only the rows it returns. With a
     * small table (under about 2,000 live jobs) and a list of 150, MariaDB 11.4 chose to scan the
     * whole table or an index; a locking scan waits on every row another transaction holds, so two
     * batches of results written side by side deadlocked on each other's first row
     * (docs/performance.md, "Pull consumers"). JobMapper's DELETEs by ids take the same hint.
     */
    static String byPrimaryKey(SqlSession s) {
        return Database.H2.equals(s.getConfiguration().getDatabaseId()) ? "" : " FORCE INDEX (PRIMARY)";
    }

    /**
     * The session's connection, with the statements a batch session holds back sent first, so a
     * plain statement comes after them, as it does in the code.
     */
    static Connection connection(SqlSession s) {
        s.flushStatements();
        return s.getConnection();
    }

    /** Reads one row of a result set, by column position. */
    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** Runs {@code sql} (with {@code token} as its one parameter, if not null); a row per result row. */
    private static <T> List<T> query(SqlSession s, String sql, String token, RowReader<T> reader) {
        try (PreparedStatement ps = connection(s).prepareStatement(sql)) {
            ps.setQueryTimeout(JobRowInsert.STATEMENT_TIMEOUT_S);
            if (token != null) {
                ps.setString(1, token);
            }
            try (ResultSet rs = ps.executeQuery()) {
                List<T> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(reader.read(rs));
                }
                return rows;
            }
        } catch (SQLException e) {
            throw UnavailabilityTranslator.translate(e);
        }
    }

    private static LockedJobRow lockedRow(ResultSet rs) throws SQLException {
        LockedJobRow r = new LockedJobRow();
        r.id = rs.getLong(1);
        r.app = rs.getString(2);
        r.service = rs.getString(3);
        r.state = rs.getString(4);
        r.attempts = rs.getInt(5);
        r.ownerNode = rs.getString(6);
        r.version = rs.getInt(7);
        return r;
    }

    private static JobRow row(ResultSet rs) throws SQLException {
        JobRow r = new JobRow();
        r.id = rs.getLong(1);
        r.app = rs.getString(2);
        r.service = rs.getString(3);
        r.bizKey = rs.getString(4);
        r.shard = rs.getInt(5);
        r.state = rs.getString(6);
        r.fireAt = rs.getLong(7);
        r.dueAt = rs.getLong(8);
        r.expireAt = nullableLong(rs, 9);
        r.attempts = rs.getInt(10);
        r.budgetBase = rs.getInt(11);
        r.maxAttempts = rs.getInt(12);
        r.timeoutMs = rs.getLong(13);
        r.expireAfterMs = nullableLong(rs, 14);
        r.payload = rs.getString(15);
        r.attributes = rs.getString(16);
        r.lastError = rs.getString(17);
        r.ownerNode = rs.getString(18);
        r.claimToken = rs.getString(19);
        r.version = rs.getInt(20);
        r.createdAt = rs.getLong(21);
        r.updatedAt = rs.getLong(22);
        return r;
    }

    private static Long nullableLong(ResultSet rs, int column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }
}
