package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.port.StoreContendedException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import org.apache.ibatis.exceptions.PersistenceException;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.TransactionIsolationLevel;

/**
 * The one place where a database failure becomes a typed error: every session the factory opens
 * (and every mapper taken from it) turns a failure that says "the database cannot take this now"
 * into {@link StoreUnavailableException}, so no caller above the store handles MyBatis' or JDBC's
 * exceptions. Anything else — a constraint, bad SQL, a data error — stays as it is: callers that
 * expect it (a duplicate key) still see it, and the front doors answer it as an internal error.
 */
final class UnavailabilityTranslator implements SqlSessionFactory {
    private final SqlSessionFactory delegate;

    UnavailabilityTranslator(SqlSessionFactory delegate) {
        this.delegate = delegate;
    }

    /**
     * The server refuses writes for now: read-only (1290, a replica or a primary being switched
     * over; 1792, a read-only transaction), a full disk (1021) or table (1114).
     */
    private static final java.util.Set<Integer> REFUSING_WRITES = java.util.Set.of(1290, 1792, 1021, 1114);

    /**
     * Connection (08), transaction rollback (40, deadlocks), timeouts, MySQL's lock wait timeout, a
     * server refusing writes for now.
     */
    static boolean meansUnavailable(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLTransientConnectionException
                    || c instanceof SQLTimeoutException
                    || c instanceof SQLTransactionRollbackException) {
                return true;
            }
            if (c instanceof SQLException sql) {
                String state = sql.getSQLState();
                if ((state != null && (state.startsWith("08") || state.startsWith("40")))
                        || sql.getErrorCode() == 1205
                        || REFUSING_WRITES.contains(sql.getErrorCode())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static SqlSession translating(SqlSession session, Configuration configuration) {
        InvocationHandler handler = new InvocationHandler() {
            @Override
            public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
                if (method.getName().equals("getMapper") && args != null && args.length == 1) {
                    // mappers must call back through the proxy, or their statements bypass it
                    return configuration.getMapper((Class<?>) args[0], (SqlSession) proxy);
                }
                try {
                    return method.invoke(session, args);
                } catch (InvocationTargetException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof PersistenceException && meansUnavailable(cause)) {
                        throw unavailable(cause);
                    }
                    throw cause;
                }
            }
        };
        return (SqlSession)
                Proxy.newProxyInstance(SqlSession.class.getClassLoader(), new Class<?>[] {SqlSession.class}, handler);
    }

    /** A failure of JDBC used directly on a session's connection, typed as the session's would be. */
    static RuntimeException translate(SQLException e) {
        PersistenceException wrapped = new PersistenceException(e);
        return meansUnavailable(e) ? unavailable(wrapped) : wrapped;
    }

    /** Contended (a lock wait or statement timeout, a deadlock) or not reachable at all. */
    static StoreUnavailableException unavailable(Throwable cause) {
        return meansContended(cause)
                ? new StoreContendedException("the database timed out or rolled back: " + rootMessage(cause), cause)
                : new StoreUnavailableException("the database is not available: " + rootMessage(cause), cause);
    }

    /**
     * The database answered: a statement timeout (a write waiting on another transaction's row
     * lock ends here first: 30 s against InnoDB's 50 s lock wait; MariaDB 1969, MySQL 3024 or a
     * driver's timeout), MySQL's lock wait timeout (1205), a deadlock or other rollback (1213,
     * SQLState 40). A lost or killed connection anywhere in the chain is not contention, even when
     * the driver reports it as a timeout (MariaDB 1927 "connection was killed", 1317 "query
     * execution was interrupted", SQLState 08).
     */
    static boolean meansContended(Throwable t) {
        boolean contended = false;
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.sql.SQLNonTransientConnectionException
                    || c instanceof java.sql.SQLTransientConnectionException
                    || c instanceof java.sql.SQLRecoverableException) {
                return false;
            }
            if (c instanceof SQLException sql) {
                String state = sql.getSQLState();
                int code = sql.getErrorCode();
                if ((state != null && state.startsWith("08")) || code == 1927 || code == 1317) {
                    return false;
                }
                if (c instanceof SQLTimeoutException
                        || c instanceof SQLTransactionRollbackException
                        || code == 1969
                        || code == 3024
                        || code == 1205
                        || code == 1213
                        || (state != null && state.startsWith("40"))) {
                    contended = true;
                }
            }
        }
        return contended;
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }

    private SqlSession wrap(SqlSession s) {
        return translating(s, delegate.getConfiguration());
    }

    @Override
    public SqlSession openSession() {
        return wrap(delegate.openSession());
    }

    @Override
    public SqlSession openSession(boolean autoCommit) {
        return wrap(delegate.openSession(autoCommit));
    }

    @Override
    public SqlSession openSession(Connection connection) {
        return wrap(delegate.openSession(connection));
    }

    @Override
    public SqlSession openSession(TransactionIsolationLevel level) {
        return wrap(delegate.openSession(level));
    }

    @Override
    public SqlSession openSession(ExecutorType execType) {
        return wrap(delegate.openSession(execType));
    }

    @Override
    public SqlSession openSession(ExecutorType execType, boolean autoCommit) {
        return wrap(delegate.openSession(execType, autoCommit));
    }

    @Override
    public SqlSession openSession(ExecutorType execType, TransactionIsolationLevel level) {
        return wrap(delegate.openSession(execType, level));
    }

    @Override
    public SqlSession openSession(ExecutorType execType, Connection connection) {
        return wrap(delegate.openSession(execType, connection));
    }

    @Override
    public Configuration getConfiguration() {
        return delegate.getConfiguration();
    }
}
