package dev.hourglass.node.store;

import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The storage contract on the MySQL-compatible database named by {@code HOURGLASS_TEST_DB_URL}
 * (with {@code HOURGLASS_TEST_DB_USER} / {@code HOURGLASS_TEST_DB_PASSWORD}). That database is a
 * scratch database: the suite drops Hourglass' tables in it first.
 */
@EnabledIfEnvironmentVariable(named = "HOURGLASS_TEST_DB_URL", matches = ".+")
@RunsAlongside
class EnvDatabaseStorageIT extends StorageContract {
    private static final String[] TABLES = {
        "job_delay_task",
        "job_delay_task_backlog",
        "job_delay_task_execlog",
        "job_callback_service",
        "hg_app_token",
        "hg_app",
        "flyway_schema_history"
    };

    @Override
    protected Database open() {
        String url = System.getenv("HOURGLASS_TEST_DB_URL");
        String user = System.getenv().getOrDefault("HOURGLASS_TEST_DB_USER", "root");
        String password = System.getenv().getOrDefault("HOURGLASS_TEST_DB_PASSWORD", "");
        try (Connection c = DriverManager.getConnection(url, user, password);
                Statement s = c.createStatement()) {
            for (String t : TABLES) {
                s.execute("DROP TABLE IF EXISTS " + t);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare " + url, e);
        }
        return new Database(url, user, password, 8);
    }
}
