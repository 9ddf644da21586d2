package dev.hourglass.node.store.mybatis;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import javax.sql.DataSource;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.apache.ibatis.type.JdbcType;
import org.flywaydb.core.Flyway;

/**
 * The connection pools, the schema migrations and the MyBatis session factories of one database.
 *
 * <p>Two pools: {@link #sessions()} for the API (HTTP and Dubbo requests: up to a few hundred
 * threads), service writes and retention; {@link #engineSessions()} for the firing engine alone
 * (claims, result writes, loader, sweeps, service reads). A burst of API requests then queues for
 * API connections only, and can never make a claim or a result write wait for a connection. The
 * migrations run once, on the API pool, before either pool serves.
 *
 * <p>Connections run at READ COMMITTED: the scheduler's statements are conditional updates on primary
 * keys and index ranges, and REPEATABLE READ's gap locks would only make concurrent claims and
 * inserts wait on each other.
 */
public final class Database implements AutoCloseable {
    private final HikariDataSource api;
    private final HikariDataSource engine;
    private final SqlSessionFactory sessions;
    private final SqlSessionFactory engineSessions;

    /** One pool for everything: {@link #engineSessions()} is {@link #sessions()} (storage tests). */
    public Database(String jdbcUrl, String user, String password, int poolSize) {
        this(jdbcUrl, user, password, poolSize, 0, null);
    }

    /**
     * @param enginePoolSize connections of the engine's own pool; 0: the engine shares the API pool
     * @param metrics registry of the pools' {@code hikaricp_*} meters (tag {@code pool}); null: none
     */
    public Database(
            String jdbcUrl, String user, String password, int poolSize, int enginePoolSize, MeterRegistry metrics) {
        this.api =
                pool(jdbcUrl, user, password, enginePoolSize > 0 ? "hourglass-api" : "hourglass-db", poolSize, metrics);
        HikariDataSource enginePool = null;
        try {
            Flyway.configure()
                    .dataSource(api)
                    .locations("classpath:db/migration")
                    .load()
                    .migrate();
            this.sessions = sessionFactory(api);
            if (enginePoolSize > 0) {
                enginePool = pool(jdbcUrl, user, password, "hourglass-engine", enginePoolSize, metrics);
                this.engineSessions = sessionFactory(enginePool);
            } else {
                this.engineSessions = sessions;
            }
            this.engine = enginePool;
        } catch (RuntimeException e) {
            if (enginePool != null) {
                enginePool.close();
            }
            api.close();
            throw e;
        }
    }

    private static HikariDataSource pool(
            String jdbcUrl, String user, String password, String name, int size, MeterRegistry metrics) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(jdbcUrl);
        hikari.setUsername(user);
        hikari.setPassword(password);
        hikari.setMaximumPoolSize(size);
        hikari.setPoolName(name);
        hikari.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        hikari.setConnectionTimeout(5_000);
        if (metrics != null) {
            hikari.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(metrics));
        }
        return new HikariDataSource(hikari);
    }

    private static SqlSessionFactory sessionFactory(DataSource dataSource) {
        Environment environment = new Environment("hourglass", new JdbcTransactionFactory(), dataSource);
        Configuration configuration = new Configuration(environment);
        configuration.setMapUnderscoreToCamelCase(true);
        configuration.setJdbcTypeForNull(JdbcType.NULL);
        configuration.setDefaultStatementTimeout(30);
        configuration.addMapper(JobMapper.class);
        configuration.addMapper(ServiceMapper.class);
        configuration.addMapper(AppMapper.class);
        configuration.addMapper(RetentionMapper.class);
        return new UnavailabilityTranslator(new SqlSessionFactoryBuilder().build(configuration));
    }

    /** Sessions of the API pool. */
    public SqlSessionFactory sessions() {
        return sessions;
    }

    /** Sessions of the firing engine's own pool (the API pool's when built with one pool). */
    public SqlSessionFactory engineSessions() {
        return engineSessions;
    }

    /** True when a connection of the API pool can be had and answers. */
    public boolean isReachable() {
        try (Connection c = api.getConnection()) {
            return c.isValid(2);
        } catch (Exception e) {
            return false;
        }
    }

    @Override
    public void close() {
        if (engine != null) {
            engine.close();
        }
        api.close();
    }
}
