package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.node.core.port.StoreContendedException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.apache.ibatis.session.SqlSession;
import org.junit.jupiter.api.Test;

/**
 * A node frozen inside a transaction (here: a session that stops between its update and its
 * commit) does not hold its row locks until it wakes: MariaDB ends the idle transaction after the
 * limit, and another node's write of the same row goes through.
 */
@RunsAlongside
class IdleTransactionIT {
    @Test
    void mariaDbEndsATransactionLeftIdleAndReleasesItsLocks() throws Exception {
        String url = EmbeddedMariaDb.newDatabase();
        try (Database db = new Database(url, "root", "", 2, 0, null, Duration.ofSeconds(2))) {
            execute(url, "INSERT INTO hg_app (name, created_at) VALUES ('frozen', 1)");
            SqlSession frozen = db.sessions().openSession(false);
            try (Statement s = frozen.getConnection().createStatement()) {
                s.executeUpdate("UPDATE hg_app SET created_at = 2 WHERE name = 'frozen'");
            }
            Thread.sleep(3_500); // the node is frozen past the limit

            long started = System.nanoTime();
            try (Connection other = DriverManager.getConnection(url, "root", "");
                    Statement s = other.createStatement()) {
                s.execute("SET SESSION innodb_lock_wait_timeout = 10");
                assertThat(s.executeUpdate("UPDATE hg_app SET created_at = 3 WHERE name = 'frozen'"))
                        .isEqualTo(1);
            }
            assertThat((System.nanoTime() - started) / 1_000_000)
                    .as("the row lock was gone, not waited for (10 s: the wait's limit)")
                    .isLessThan(9_000);
            assertThatThrownBy(() -> frozen.commit(true))
                    .as("the woken node's transaction was rolled back; its connection is gone")
                    .isInstanceOf(StoreUnavailableException.class)
                    .isNotInstanceOf(StoreContendedException.class);
            frozen.close();
        }
        try (Connection c = DriverManager.getConnection(url, "root", "");
                Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SELECT created_at FROM hg_app WHERE name = 'frozen'")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(3);
        }
    }

    private static void execute(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "root", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
