package dev.hourglass.node.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The execution log records when an attempt was really sent: an attempt that waited at its
 * service's gate behind a slow receiver shows the time it left, the same {@code firedAt} its
 * callback carried, and its lateness counts the wait.
 */
@RunsAlongside
class ExecutionLogIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static NodeFixture f;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture(c -> c.dubbo.enabled = false); // HTTP only
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void firedAtIsTheSendTimeThatTheCallbackCarried() throws Exception {
        f.receiver.respond(r -> new Reply(200, "", Map.of(), 400));
        String service = f.httpService("\"maxInFlight\":1");
        List<String> ids = new ArrayList<>();
        // one fire time for the four, so the last one's wait is the three deliveries before it
        // however far apart the submits were (beside other test JVMs, README
        // "Tests", four submits can take longer than one 400 ms delivery)
        String sameFireAt =
                Instant.ofEpochMilli(System.currentTimeMillis() + 1_500).toString();
        for (int i = 0; i < 4; i++) {
            ApiClient.Answer a =
                    f.app.post("/api/v1/jobs", "{\"service\":\"" + service + "\",\"fireAt\":\"" + sameFireAt + "\"}");
            assertThat(a.status()).as(a.text()).isEqualTo(201);
            ids.add(a.json().get("id").asText());
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> ids.stream().allMatch(id -> "FINISHED".equals(f.state(id))));
        long latest = 0;
        for (String id : ids) {
            Received r = f.receiver.receivedFor(id).get(0);
            long carried = Instant.parse(JSON.readTree(r.body()).get("firedAt").asText())
                    .toEpochMilli();
            JsonNode execution = f.executions(id).get(0);
            long logged = NodeFixture.epochMs(execution.get("firedAt"));
            assertThat(logged)
                    .as("job " + id + ": logged firedAt = the callback's")
                    .isEqualTo(carried);
            long fireAt = NodeFixture.epochMs(f.job(id).get("fireAt"));
            assertThat(execution.get("latenessMs").asLong()).isEqualTo(logged - fireAt);
            latest = Math.max(latest, execution.get("latenessMs").asLong());
        }
        assertThat(latest).as("the last one waited for three slow deliveries").isGreaterThanOrEqualTo(1_000);
    }
}
