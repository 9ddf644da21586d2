package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Upgrading a database that holds live jobs to V15: the jobs of PULL services already there are
 * marked {@code pulled}, so the engine's reads skip them from the first sweep on (docs/design.md,
 * "The engine leaves PULL jobs alone").
 */
@RunsAlongside
class PulledJobsMigrationIT {

    @Test
    void theJobsOfPullServicesAlreadyThereAreMarkedPulled() throws Exception {
        String url = EmbeddedMariaDb.newEmptyDatabase();
        Flyway.configure()
                .dataSource(url, "root", "")
                .locations("classpath:db/migration")
                .target("14")
                .load()
                .migrate();
        try (Connection c = DriverManager.getConnection(url, "root", "")) {
            try (Statement st = c.createStatement()) {
                st.executeUpdate(
                        "INSERT INTO job_callback_service (app, name, protocol, url, max_attempts,"
                                + " timeout_ms, backoff_initial_ms, backoff_multiplier, backoff_max_ms, ack_mode,"
                                + " max_in_flight, created_at, updated_at) VALUES"
                                + " ('shop', 'queue', 'PULL', NULL, 3, 30000, 1000, 2, 60000, 'CONSUMER', 100, 0, 0),"
                                + " ('shop', 'close', 'HTTP', 'http://127.0.0.1/cb', 3, 30000, 1000, 2, 60000, 'AUTO', 100, 0, 0),"
                                + " ('web', 'queue', 'HTTP', 'http://127.0.0.1/cb', 3, 30000, 1000, 2, 60000, 'AUTO', 100, 0, 0)");
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO job_delay_task (id, app, service,"
                    + " shard, state, fire_at, due_at, attempts, budget_base, max_attempts, timeout_ms,"
                    + " payload, version, created_at, updated_at) VALUES (?, ?, ?, 0, ?, 0, 0, 0, 0, 3, 1000,"
                    + " '{}', 0, 0, 0)")) {
                Object[][] rows = {
                    {1L, "shop", "queue", "DELAYED"},
                    {2L, "shop", "queue", "RUNNING"},
                    {3L, "shop", "close", "DELAYED"},
                    {4L, "web", "queue", "DELAYED"}
                };
                for (Object[] r : rows) {
                    insert.setLong(1, (Long) r[0]);
                    insert.setString(2, (String) r[1]);
                    insert.setString(3, (String) r[2]);
                    insert.setString(4, (String) r[3]);
                    insert.executeUpdate();
                }
            }
        }
        try (Database db = new Database(url, "root", "", 2);
                Connection c = DriverManager.getConnection(url, "root", "");
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT id, pulled FROM job_delay_task")) {
            Map<Long, Boolean> pulled = new HashMap<>();
            while (rs.next()) {
                pulled.put(rs.getLong(1), rs.getBoolean(2));
            }
            assertThat(pulled)
                    .as("the PULL service's jobs, whatever their state; not a pushed service's of the same name")
                    .containsExactlyInAnyOrderEntriesOf(Map.of(1L, true, 2L, true, 3L, false, 4L, false));
        }
    }
}
