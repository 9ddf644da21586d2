package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.core.port.JobReads.LiveCount;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.store.mybatis.MyBatisJobRepository;
import dev.hourglass.node.store.mybatis.SqlFailures;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Upgrading a database that holds live jobs to the live counters (V5): the counts start from what
 * is there, so the stats of an upgraded cluster are right from its first answer.
 */
@RunsAlongside
class LiveCountsMigrationIT {

    @Test
    void theCountersStartFromTheJobsAlreadyThere() throws Exception {
        String url = EmbeddedMariaDb.newEmptyDatabase();
        Flyway.configure()
                .dataSource(url, "root", "")
                .locations("classpath:db/migration")
                .target("4")
                .load()
                .migrate();
        try (Connection c = DriverManager.getConnection(url, "root", "");
                PreparedStatement insert = c.prepareStatement("INSERT INTO job_delay_task (id, app, service,"
                        + " shard, state, fire_at, due_at, attempts, budget_base, max_attempts, timeout_ms,"
                        + " payload, version, created_at, updated_at) VALUES (?, ?, ?, 0, ?, 0, 0, 0, 0, 3, 1000,"
                        + " '{}', 0, 0, 0)")) {
            Object[][] rows = {
                {"shop", "close", "DELAYED"},
                {"shop", "close", "DELAYED"},
                {"shop", "close", "RUNNING"},
                {"shop", "remind", "DELAYED"},
                {"web", "close", "RUNNING"}
            };
            long id = 1;
            for (Object[] r : rows) {
                insert.setLong(1, id++);
                insert.setString(2, (String) r[0]);
                insert.setString(3, (String) r[1]);
                insert.setString(4, (String) r[2]);
                insert.executeUpdate();
            }
        }
        try (Database db = new Database(url, "root", "", 2)) {
            MyBatisJobRepository jobs = new MyBatisJobRepository(db.sessions(), new SqlFailures());
            assertThat(jobs.countLive(null))
                    .containsExactlyInAnyOrder(
                            new LiveCount("shop", "close", "DELAYED", 2),
                            new LiveCount("shop", "close", "RUNNING", 1),
                            new LiveCount("shop", "remind", "DELAYED", 1),
                            new LiveCount("web", "close", "RUNNING", 1));
            assertThat(jobs.countLive("web")).containsExactly(new LiveCount("web", "close", "RUNNING", 1));
        }
    }
}
