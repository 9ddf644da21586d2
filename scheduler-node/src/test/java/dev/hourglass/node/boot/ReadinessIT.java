package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.node.testing.ApiClient.Answer;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsPaired;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code /health/ready} tells the truth about the node, not about its API pool: with every API
 * connection taken by requests waiting on a lock (an API flood), the node is still READY, because
 * readiness asks the database on the probe's own connection.
 */
// paired: alone it kept 10% of the two cores; its bounds are seconds for what takes milliseconds (machine CPU in the
// thread census, 2026-11-27)
@RunsPaired
class ReadinessIT {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void aNodeWhoseApiPoolIsExhaustedIsStillReady() throws Exception {
        try (NodeFixture f = new NodeFixture(c -> {
            c.database.poolSize = 2;
            c.dubbo.enabled = false; // HTTP only
        })) {
            assertThat(status(f, "/health/ready", 5)).isEqualTo(200);
            List<CompletableFuture<Answer>> puts = new ArrayList<>();
            try (Connection holder = DriverManager.getConnection(f.jdbcUrl, "root", "");
                    Statement s = holder.createStatement()) {
                holder.setAutoCommit(false);
                // every service put writes this row in its transaction: each waits here, holding
                // one of the API pool's two connections
                s.executeQuery("SELECT version FROM hg_service_version WHERE id = 1 FOR UPDATE");
                for (int i = 0; i < 2; i++) {
                    String name = "held-" + i;
                    puts.add(CompletableFuture.supplyAsync(() -> f.app.put(
                            "/api/v1/services/" + name,
                            "{\"protocol\":\"HTTP\",\"url\":\"" + f.receiver.url() + "\"}")));
                }
                Thread.sleep(1_500);
                assertThatThrownBy(() -> status(f, "/api/v1/services", 2))
                        .as("the API pool is exhausted: a read waits for a connection")
                        .isInstanceOf(HttpTimeoutException.class);
                long asked = System.nanoTime();
                assertThat(status(f, "/health/ready", 5))
                        .as("ready all the same")
                        .isEqualTo(200);
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked))
                        .isLessThan(3_000);
                holder.rollback();
            }
            for (CompletableFuture<Answer> put : puts) {
                assertThat(put.get(40, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
        }
    }

    private static int status(NodeFixture f, String path, int timeoutSeconds) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(f.node.baseUrl() + path))
                .header("Authorization", "Bearer " + f.appToken)
                .timeout(Duration.ofSeconds(timeoutSeconds))
                .GET()
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
