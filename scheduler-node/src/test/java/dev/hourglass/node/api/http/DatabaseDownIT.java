package dev.hourglass.node.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.NodeFixture;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A database the node cannot reach is a typed, retryable answer — 503 UNAVAILABLE — not a
 * MyBatis exception leaking out as an internal error, and the node serves again once it is back.
 * The node logs in as a user of its own, whose account the test locks and whose connections it
 * kills: the pool then has nothing to hand out.
 */
class DatabaseDownIT {
    static final AtomicInteger USERS = new AtomicInteger();
    static NodeFixture f;
    static String user;

    @BeforeAll
    static void start() throws Exception {
        user = "hg_down_" + USERS.incrementAndGet() + "_"
                + ProcessHandle.current().pid();
        String[] holder = new String[1];
        f = new NodeFixture(c -> {
            holder[0] = database(c.database.url);
            asRoot(c.database.url, "CREATE USER " + user + "@'%' IDENTIFIED BY 'pw'");
            asRoot(c.database.url, "GRANT ALL ON " + holder[0] + ".* TO " + user + "@'%'");
            c.database.user = user;
            c.database.password = "pw";
            c.database.poolSize = 2;
        });
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static String database(String url) {
        String path = url.substring(url.lastIndexOf('/') + 1);
        return path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    }

    private static void asRoot(String url, String sql) {
        try (Connection c = DriverManager.getConnection(url, "root", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static void killConnectionsOf(String url, String name) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "root", "");
                Statement s = c.createStatement();
                ResultSet r =
                        s.executeQuery("SELECT id FROM information_schema.processlist WHERE user = '" + name + "'")) {
            java.util.List<Long> ids = new java.util.ArrayList<>();
            while (r.next()) {
                ids.add(r.getLong(1));
            }
            for (long id : ids) {
                try (Statement k = c.createStatement()) {
                    k.execute("KILL CONNECTION " + id);
                } catch (java.sql.SQLException gone) {
                    // ended by itself meanwhile
                }
            }
        }
    }

    @Test
    void aDatabaseThatCannotBeReachedIsAnswered503AndTheNodeRecovers() throws Exception {
        String service = f.httpService("");
        String body = "{\"service\":\"" + service + "\",\"delayMs\":600000}";
        assertThat(f.app.post("/api/v1/jobs", body).status()).isEqualTo(201);

        asRoot(f.jdbcUrl, "ALTER USER " + user + "@'%' ACCOUNT LOCK");
        killConnectionsOf(f.jdbcUrl, user);
        ApiClient.Answer down = f.app.post("/api/v1/jobs", body);
        assertThat(down.status()).as(down.text()).isEqualTo(503);
        assertThat(down.errorCode()).isEqualTo("UNAVAILABLE");

        asRoot(f.jdbcUrl, "ALTER USER " + user + "@'%' ACCOUNT UNLOCK");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> f.app.post("/api/v1/jobs", body).status() == 201);
    }
}
