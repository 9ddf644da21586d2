package dev.hourglass.node.store.mybatis;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import dev.hourglass.node.background.DaemonThreads;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.apache.ibatis.type.JdbcType;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection pools, the schema migrations and the MyBatis session factories of one database.
 *
 * <p>Two pools: {@link #sessions()} for the API (HTTP and Dubbo requests: up to a few hundred
 * threads), service writes and retention; {@link #engineSessions()} for the firing engine alone
 * (claims, result writes, loader, sweeps, service reads). A burst of API requests then queues for
 * API connections only, and can never make a claim or a result write wait for a connection. The
 * migrations run once, on connections of their own, before either pool serves.
 *
 * <p>Connections run at READ COMMITTED: the scheduler's statements are conditional updates on primary
 * keys and index ranges, and REPEATABLE READ's gap locks would only make concurrent claims and
 * inserts wait on each other.
 *
 * <p>On MariaDB a transaction left idle for {@link #IDLE_TRANSACTION_LIMIT} (its node frozen between
 * two statements or before its commit: a long GC pause, a SIGSTOP, a suspended VM) is ended by the
 * server, which closes the connection and rolls the transaction back: its row locks would otherwise
 * stop the node that took over its shards from claiming those jobs until the frozen node woke. None
 * of the node's transactions waits for anything but the database between its statements, so a
 * healthy node never comes near the limit. MySQL 8 has no such setting: there a frozen node's locks
 * are held until it wakes or its connection dies.
 */
public final class Database implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Database.class);
    /** How long a transaction may sit idle on MariaDB before the server ends it. */
    public static final Duration IDLE_TRANSACTION_LIMIT = Duration.ofSeconds(20);
    /** MyBatis's database id ({@code _databaseId} in the mappers) of the standalone H2 store. */
    static final String H2 = "h2";
    /** MyBatis's database id of MariaDB and MySQL. */
    static final String MYSQL = "mysql";

    private final HikariDataSource api;
    private final HikariDataSource engine;
    private final SqlSessionFactory sessions;
    private final SqlSessionFactory engineSessions;
    private volatile ScheduledExecutorService maintenance;
    private final HikariDataSource probe;

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
        this(jdbcUrl, user, password, poolSize, enginePoolSize, metrics, IDLE_TRANSACTION_LIMIT);
    }

    /** @param idleTransactionLimit see {@link #IDLE_TRANSACTION_LIMIT} (tests shorten it) */
    public Database(
            String jdbcUrl,
            String user,
            String password,
            int poolSize,
            int enginePoolSize,
            MeterRegistry metrics,
            Duration idleTransactionLimit) {
        String initSql = isMariaDb(jdbcUrl, user, password)
                ? "SET SESSION idle_transaction_timeout = " + Math.max(1, idleTransactionLimit.toSeconds())
                : null;
        this.api = pool(
                jdbcUrl,
                user,
                password,
                enginePoolSize > 0 ? "hourglass-api" : "hourglass-db",
                poolSize,
                metrics,
                initSql);
        this.probe = probePool(jdbcUrl, user, password);
        HikariDataSource enginePool = null;
        try {
            Flyway.configure()
                    // its own connections, without the idle-transaction limit: on Galera, Flyway's
                    // lock on its history table idles in a transaction while a migration runs
                    .dataSource(jdbcUrl, user, password)
                    .locations("classpath:db/migration")
                    .load()
                    .migrate();
            this.sessions = sessionFactory(api, jdbcUrl);
            if (enginePoolSize > 0) {
                enginePool = pool(jdbcUrl, user, password, "hourglass-engine", enginePoolSize, metrics, initSql);
                this.engineSessions = sessionFactory(enginePool, jdbcUrl);
            } else {
                this.engineSessions = sessions;
            }
            this.engine = enginePool;
        } catch (RuntimeException e) {
            if (enginePool != null) {
                enginePool.close();
            }
            probe.close();
            api.close();
            throw e;
        }
    }

    /**
     * Asks the server itself (a MariaDB server can sit behind a {@code jdbc:mysql:} URL); any
     * failure to connect is left to the pool, which reports it as it always has.
     */
    private static boolean isMariaDb(String jdbcUrl, String user, String password) {
        if (jdbcUrl.startsWith("jdbc:h2:")) {
            return false;
        }
        java.util.Properties props = new java.util.Properties();
        props.setProperty("user", user);
        props.setProperty("password", password == null ? "" : password);
        // both MariaDB's and MySQL's drivers take these (MySQL's has no timeout of its own)
        props.setProperty("connectTimeout", "5000");
        props.setProperty("socketTimeout", "5000");
        try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl, props)) {
            return c.getMetaData()
                    .getDatabaseProductVersion()
                    .toLowerCase(java.util.Locale.ROOT)
                    .contains("mariadb");
        } catch (java.sql.SQLException e) {
            LOG.warn(
                    "could not ask the database whether it is MariaDB ({}): idle transactions are not limited"
                            + " on this node's connections until it restarts",
                    e.toString());
            return false;
        }
    }

    private static HikariDataSource pool(
            String jdbcUrl,
            String user,
            String password,
            String name,
            int size,
            MeterRegistry metrics,
            String initSql) {
        HikariConfig hikari = new HikariConfig();
        if (initSql != null) {
            hikari.setConnectionInitSql(initSql);
        }
        hikari.setJdbcUrl(jdbcUrl);
        hikari.setUsername(user);
        hikari.setPassword(password);
        hikari.setMaximumPoolSize(size);
        hikari.setPoolName(name);
        hikari.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        hikari.setConnectionTimeout(5_000);
        answerWithin(hikari, jdbcUrl, SOCKET_TIMEOUT_MS);
        if (metrics != null) {
            hikari.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(metrics));
        }
        return new HikariDataSource(hikari);
    }

    /**
     * How long a connection waits for the server's answer (MariaDB's and MySQL's drivers), unless
     * the URL says otherwise. Without it a statement on a link that went silent (a partition: no
     * reset, no close) waits for the operating system to give up on the connection, about 15
     * minutes on Linux; the server-side statement limit (30 s) does not help, since its answer is
     * what is lost. Longer than that limit, so that it never cuts a statement the server still runs.
     */
    static final int SOCKET_TIMEOUT_MS = 40_000;

    private static void answerWithin(HikariConfig hikari, String jdbcUrl, int socketTimeoutMs) {
        if (!jdbcUrl.startsWith("jdbc:h2:")
                && !jdbcUrl.toLowerCase(java.util.Locale.ROOT).contains("sockettimeout")) {
            hikari.addDataSourceProperty("socketTimeout", Integer.toString(socketTimeoutMs));
        }
    }

    /**
     * One connection of its own for {@link #answersPromptly()}: the API's and the engine's pools can
     * be busy to their last connection under load, which says nothing about the link. Not opened
     * at start (the node may start while the database is away).
     */
    private static HikariDataSource probePool(String jdbcUrl, String user, String password) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(jdbcUrl);
        hikari.setUsername(user);
        hikari.setPassword(password);
        hikari.setMaximumPoolSize(1);
        hikari.setMinimumIdle(0);
        hikari.setPoolName("hourglass-probe");
        hikari.setConnectionTimeout(3_000);
        hikari.setValidationTimeout(2_000);
        hikari.setInitializationFailTimeout(-1);
        answerWithin(hikari, jdbcUrl, 3_000);
        return new HikariDataSource(hikari);
    }

    /**
     * True when the database answers a validation within about 2 s, on the probe's own connection
     * (bounded: at most about 5 s even on a silent link). The cluster's database-loss watch asks it
     * once a second.
     */
    public boolean answersPromptly() {
        try (Connection c = probe.getConnection()) {
            return c.isValid(2);
        } catch (Exception e) {
            return false;
        }
    }

    private static SqlSessionFactory sessionFactory(DataSource dataSource, String jdbcUrl) {
        Environment environment = new Environment("hourglass", new JdbcTransactionFactory(), dataSource);
        Configuration configuration = new Configuration(environment);
        // statements that need another form on H2 than on MariaDB and MySQL ask _databaseId
        configuration.setDatabaseId(jdbcUrl.startsWith("jdbc:h2:") ? H2 : MYSQL);
        configuration.setMapUnderscoreToCamelCase(true);
        configuration.setJdbcTypeForNull(JdbcType.NULL);
        configuration.setDefaultStatementTimeout(30);
        configuration.addMapper(JobMapper.class);
        configuration.addMapper(ServiceMapper.class);
        configuration.addMapper(AppMapper.class);
        configuration.addMapper(RetentionMapper.class);
        configuration.addMapper(AlertMapper.class);
        configuration.addMapper(AuditMapper.class);
        configuration.addMapper(ReservationMapper.class);
        configuration.addMapper(ScheduleMapper.class);
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

    /**
     * Runs {@code sql} on a connection of the API pool every {@code period} (the first run one
     * period from now) until {@link #close}, on a daemon thread named {@code threadName}. A failed
     * run is logged and the next one runs as planned. For the standalone database's periodic disk
     * sync; call it once.
     */
    public synchronized void runEvery(Duration period, String sql, String threadName) {
        if (maintenance != null) {
            throw new IllegalStateException("runEvery was called already");
        }
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(threadName));
        timer.scheduleWithFixedDelay(
                () -> {
                    try (Connection c = api.getConnection();
                            Statement s = c.createStatement()) {
                        s.execute(sql);
                    } catch (Exception e) {
                        LOG.warn("{} failed: {}", sql, e.toString());
                    }
                },
                period.toMillis(),
                period.toMillis(),
                TimeUnit.MILLISECONDS);
        maintenance = timer;
    }

    /** Stops {@link #runEvery} (waiting for a run under way), then closes the pools. */
    @Override
    public void close() {
        ScheduledExecutorService timer = maintenance;
        if (timer != null) {
            timer.shutdown();
            try {
                timer.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (engine != null) {
            engine.close();
        }
        probe.close();
        api.close();
    }
}
