package dev.hourglass.node.store.mybatis;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.apache.ibatis.type.JdbcType;
import org.flywaydb.core.Flyway;

/**
 * The connection pool, the schema migrations and the MyBatis session factory of one database.
 * Connections run at READ COMMITTED: the scheduler's statements are conditional updates on primary
 * keys and index ranges, and REPEATABLE READ's gap locks would only make concurrent claims and
 * inserts wait on each other.
 */
public final class Database implements AutoCloseable {
    private final HikariDataSource dataSource;
    private final SqlSessionFactory sessions;

    public Database(String jdbcUrl, String user, String password, int poolSize) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(jdbcUrl);
        hikari.setUsername(user);
        hikari.setPassword(password);
        hikari.setMaximumPoolSize(poolSize);
        hikari.setPoolName("hourglass-db");
        hikari.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        hikari.setConnectionTimeout(5_000);
        this.dataSource = new HikariDataSource(hikari);
        try {
            Flyway.configure()
                    .dataSource(dataSource)
                    .locations("classpath:db/migration")
                    .load()
                    .migrate();
            Environment environment = new Environment("hourglass", new JdbcTransactionFactory(), dataSource);
            Configuration configuration = new Configuration(environment);
            configuration.setMapUnderscoreToCamelCase(true);
            configuration.setJdbcTypeForNull(JdbcType.NULL);
            configuration.setDefaultStatementTimeout(30);
            configuration.addMapper(JobMapper.class);
            configuration.addMapper(ServiceMapper.class);
            configuration.addMapper(AppMapper.class);
            this.sessions = new UnavailabilityTranslator(new SqlSessionFactoryBuilder().build(configuration));
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }

    public SqlSessionFactory sessions() {
        return sessions;
    }

    /** True when a connection can be had and answers. */
    public boolean isReachable() {
        try (Connection c = dataSource.getConnection()) {
            return c.isValid(2);
        } catch (Exception e) {
            return false;
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
