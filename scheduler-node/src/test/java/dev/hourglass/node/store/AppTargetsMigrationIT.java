package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.core.service.TargetGrants;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.store.mybatis.MyBatisAppRepository;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Upgrading a database whose services predate delivery-target grants (V4): every topic and group an
 * existing service uses is granted to its app, so nothing that was delivered stops being delivered.
 */
@RunsAlongside
class AppTargetsMigrationIT {

    @Test
    void existingServicesKeepTheirTargets() throws Exception {
        String url = EmbeddedMariaDb.newEmptyDatabase();
        Flyway.configure()
                .dataSource(url, "root", "")
                .locations("classpath:db/migration")
                .target("2")
                .load()
                .migrate();
        try (Connection c = DriverManager.getConnection(url, "root", "");
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO hg_app (name, created_at) VALUES ('shop', 0), ('billing', 0), ('web', 0)");
            s.execute(service("shop", "a", "'KAFKA'", "'orders.close'", "NULL", "NULL"));
            s.execute(service("shop", "b", "'KAFKA'", "'orders.close'", "NULL", "NULL")); // same topic twice
            s.execute(service("shop", "c", "'DUBBO'", "NULL", "NULL", "'billing'"));
            s.execute(service("shop", "d", "'DUBBO'", "NULL", "NULL", "NULL")); // default group, registry
            s.execute(service("billing", "e", "'DUBBO'", "NULL", "'dubbo://10.0.0.1:20880'", "NULL")); // direct
            s.execute(service("web", "f", "'HTTP'", "NULL", "'http://127.0.0.1/cb'", "NULL"));
        }
        try (Database db = new Database(url, "root", "", 2)) {
            Map<String, TargetGrants> grants = new MyBatisAppRepository(db.sessions()).allTargets();
            assertThat(grants)
                    .containsOnlyKeys("shop")
                    .containsEntry("shop", new TargetGrants(List.of("orders.close"), List.of("billing"), true));
        }
    }

    private static String service(String app, String name, String protocol, String topic, String url, String group) {
        return "INSERT INTO job_callback_service (app, name, protocol, topic, url, dubbo_group, max_attempts,"
                + " timeout_ms, backoff_initial_ms, backoff_multiplier, backoff_max_ms, ack_mode, max_in_flight,"
                + " created_at, updated_at) VALUES ('" + app + "', '" + name + "', " + protocol + ", " + topic
                + ", " + url + ", " + group + ", 5, 30000, 1000, 2.0, 600000, 'AUTO', 1000, 0, 0)";
    }
}
