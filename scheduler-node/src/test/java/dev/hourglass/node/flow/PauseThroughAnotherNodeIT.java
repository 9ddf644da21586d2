package dev.hourglass.node.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.InProcessCluster;
import dev.hourglass.node.testing.RunsPaired;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pause answered by one node is what every node answers at once: the service read through
 * another node shows it, and a fire of its job there is a 409 (docs/api.md, "Pause and resume").
 * Until 2026-11-28 both answered from the other node's memory of the services, up to half a
 * second behind.
 */
@RunsPaired
class PauseThroughAnotherNodeIT {
    InProcessCluster cluster;
    ApiClient viaA;
    ApiClient viaB;

    @BeforeEach
    void start() throws Exception {
        cluster = InProcessCluster.start(2, (i, c) -> c.dubbo.enabled = false);
        viaA = cluster.newApp("shop");
        viaB = new ApiClient(cluster.nodes().get(1).baseUrl(), viaA.token());
        await().atMost(Duration.ofSeconds(20))
                .until(() -> cluster.admin()
                                .get("/api/v1/cluster")
                                .json()
                                .get("nodes")
                                .size()
                        == 2);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.closeTogether();
    }

    @Test
    void aPauseThroughOneNodeIsWhatTheOtherAnswersAtOnce() {
        assertThat(viaA.put("/api/v1/services/s", "{\"protocol\":\"PULL\"}").status())
                .isEqualTo(200);
        String id = viaA.post("/api/v1/jobs", "{\"service\":\"s\",\"delayMs\":3600000}")
                .json()
                .get("id")
                .asText();
        assertThat(viaB.get("/api/v1/services/s").json().get("paused").asBoolean())
                .isFalse();
        for (int round = 0; round < 10; round++) {
            assertThat(viaA.post("/api/v1/services/s/pause", "").status()).isEqualTo(200);
            JsonNode seen = viaB.get("/api/v1/services/s").json();
            assertThat(seen.get("paused").asBoolean())
                    .as("round %d: paused, through B", round)
                    .isTrue();
            assertThat(seen.get("pausedAt").isNull()).isFalse();
            assertThat(viaB.post("/api/v1/jobs/" + id + "/fire", "").status())
                    .as("round %d: a fire through B while paused", round)
                    .isEqualTo(409);
            assertThat(viaA.post("/api/v1/services/s/resume", "").status()).isEqualTo(200);
            assertThat(viaB.get("/api/v1/services/s").json().get("paused").asBoolean())
                    .as("round %d: resumed, through B", round)
                    .isFalse();
        }
        assertThat(viaA.get("/api/v1/jobs/" + id).json().get("state").asText())
                .as("no refused fire changed the job")
                .isEqualTo("DELAYED");
    }
}
