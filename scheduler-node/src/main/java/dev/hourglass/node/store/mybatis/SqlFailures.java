package dev.hourglass.node.store.mybatis;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.ibatis.session.SqlSession;

/**
 * What a failed statement says, read through MyBatis' wrapping on every supported driver, and the
 * one retry every transaction deserves: after a deadlock, InnoDB rolled the transaction back and
 * running it again is the documented remedy — at once the first time (waiting would only add
 * lateness), then after a short random pause: eight pull consumers acknowledging batches of 50 at
 * once met the same deadlock again when they all retried at once, and after three retries one of
 * them answered its consumer UNAVAILABLE for a batch it could have written.
 */
public final class SqlFailures {
    private static final int RETRIES_AFTER_DEADLOCK = 8;
    /** The longest pause before a retry (the pause doubles from 1 ms, plus jitter, up to this). */
    private static final long MAX_PAUSE_MS = 20;

    private final AtomicLong deadlocks = new AtomicLong();

    /** Deadlocks seen so far (each one was retried): for the metrics. */
    public long deadlocks() {
        return deadlocks.get();
    }

    /** Runs a whole transaction, again at once after a deadlock (a few times at most). */
    <T> T retryingDeadlocks(Supplier<T> transaction) {
        for (int attempt = 0; ; attempt++) {
            try {
                return transaction.get();
            } catch (RuntimeException e) {
                if (!isDeadlock(e) || attempt >= RETRIES_AFTER_DEADLOCK) {
                    throw e;
                }
                deadlocks.incrementAndGet();
                if (attempt > 0) {
                    pause(attempt);
                }
            }
        }
    }

    /** A pause that parts transactions that keep meeting: random, so they do not retry in step again. */
    private static void pause(int attempt) {
        long bound = Math.min(MAX_PAUSE_MS, 1L << Math.min(attempt, 5));
        try {
            Thread.sleep(1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(bound));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** SQLState 40001 (serialization failure) or MySQL/MariaDB error 1213 / H2's 40001. */
    static boolean isDeadlock(Throwable t) {
        SQLException sql = sqlCause(t);
        return sql != null && ("40001".equals(sql.getSQLState()) || sql.getErrorCode() == 1213);
    }

    /** A unique-key violation (SQLState class 23). */
    static boolean isDuplicateKey(Throwable t) {
        SQLException sql = sqlCause(t);
        return sql != null && sql.getSQLState() != null && sql.getSQLState().startsWith("23");
    }

    /**
     * The data, not the database, failed: an integrity violation (class 23) or a data exception
     * (class 22). Running the same statement again fails the same way.
     */
    static boolean isCausedByData(Throwable t) {
        SQLException sql = sqlCause(t);
        if (sql == null || sql instanceof SQLTransientConnectionException || sql.getSQLState() == null) {
            return false;
        }
        return sql.getSQLState().startsWith("23") || sql.getSQLState().startsWith("22");
    }

    private static SQLException sqlCause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException sql) {
                return sql;
            }
        }
        return null;
    }

    /**
     * Rolls the session's transaction back whatever MyBatis knows of it. Forced: MyBatis rolls back
     * at the close only what it wrote itself, and a statement run in plain JDBC on the session's
     * connection (the hot inserts and updates) it does not know of; its reset of auto-commit at the
     * close would commit those. A failure here is dropped: the one being thrown says more, and the
     * pool discards or resets the connection.
     */
    static void rollbackQuietly(SqlSession s) {
        try {
            s.rollback(true);
        } catch (RuntimeException e) {
            // see above
        }
    }
}
