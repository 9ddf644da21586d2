package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.job.StoreUnavailableException;
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

    /** Connection (08), transaction rollback (40, deadlocks), timeouts, MySQL's lock wait timeout. */
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
                        || sql.getErrorCode() == 1205) {
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
                        throw new StoreUnavailableException(
                                "the database is not available: " + rootMessage(cause), cause);
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
        return meansUnavailable(e)
                ? new StoreUnavailableException("the database is not available: " + rootMessage(e), wrapped)
                : wrapped;
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
