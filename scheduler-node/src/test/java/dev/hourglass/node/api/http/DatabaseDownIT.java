package dev.hourglass.node.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TcpProxy;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A database the node cannot reach is a typed, retryable answer — 503 UNAVAILABLE — not a
 * MyBatis exception leaking out as an internal error, and the node serves again once it is back.
 * The node reaches MariaDB through a TCP proxy that the test cuts, as a network fault would.
 */
@RunsAlongside
class DatabaseDownIT {
    static TcpProxy proxy;
    static NodeFixture f;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture(c -> {
            try {
                URI db = URI.create(c.database.url.substring("jdbc:".length()));
                proxy = new TcpProxy(db.getPort());
                c.database.url = c.database.url.replace(":" + db.getPort() + "/", ":" + proxy.port() + "/");
                c.database.poolSize = 2;
                c.dubbo.enabled = false; // HTTP only
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @AfterAll
    static void stop() {
        f.close();
        proxy.close();
    }

    @Test
    void aDatabaseThatCannotBeReachedIsAnswered503AndTheNodeRecovers() {
        String service = f.httpService("");
        String body = "{\"service\":\"" + service + "\",\"delayMs\":600000}";
        assertThat(f.app.post("/api/v1/jobs", body).status()).isEqualTo(201);

        proxy.cut();
        ApiClient.Answer down = f.app.post("/api/v1/jobs", body);
        assertThat(down.status()).as(down.text()).isEqualTo(503);
        assertThat(down.errorCode()).isEqualTo("UNAVAILABLE");

        proxy.mend();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> f.app.post("/api/v1/jobs", body).status() == 201);
    }
}
