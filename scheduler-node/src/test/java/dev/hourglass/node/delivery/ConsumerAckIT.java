package dev.hourglass.node.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsPaired;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** ackMode CONSUMER over HTTP: a job stays RUNNING until its consumer reports a result. */
@RunsPaired
class ConsumerAckIT {
    static NodeFixture f;
    /**
     * A short timeout: the test of a result that never comes waits for it (3 s: its reports for
     * attempt 2 must still come within it).
     */
    static String impatient;
    /**
     * A timeout no test reaches, for the tests whose consumer answers: with 1.5 s, a CI run under
     * load once saw attempt 1 time out between delivery and the test's report.
     */
    static String patient;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture(c -> c.dubbo.enabled = false); // HTTP only
        impatient = f.httpService("\"ackMode\":\"CONSUMER\",\"timeoutMs\":3000,\"backoff\":{\"initialMs\":100}");
        patient = f.httpService("\"ackMode\":\"CONSUMER\",\"timeoutMs\":60000,\"backoff\":{\"initialMs\":100}");
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static String deliveredJob(String service) {
        String id = f.submit(service, 0, "").get("id").asText();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !f.receiver.receivedFor(id).isEmpty());
        return id;
    }

    private static int result(String id, int attempt, String status, String extra) {
        return f.app.post(
                        "/api/v1/jobs/" + id + "/result",
                        "{\"attempt\":" + attempt + ",\"status\":\"" + status + "\"" + extra + "}")
                .status();
    }

    @Test
    void aDeliveredJobWaitsForItsResult() {
        String id = deliveredJob(patient);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> "RUNNING".equals(f.state(id)));
        assertThat(result(id, 2, "SUCCESS", "")).as("not the current attempt").isEqualTo(409);
        assertThat(result(id, 1, "SUCCESS", ",\"message\":\"done\"")).isEqualTo(200);
        assertThat(f.state(id)).isEqualTo("FINISHED");
        assertThat(f.executions(id)).extracting(e -> e.get("outcome").asText()).containsExactly("SUCCESS");
        assertThat(result(id, 1, "SUCCESS", "")).as("already final").isEqualTo(409);
    }

    @Test
    void noResultWithinTheTimeoutDeliversAgainWithTheNextAttempt() {
        String id = deliveredJob(impatient);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> f.receiver.receivedFor(id).size() == 2);
        assertThat(f.receiver.receivedFor(id)).extracting(Received::attempt).containsExactly(1, 2);
        assertThat(result(id, 1, "SUCCESS", "")).as("the timed-out attempt").isEqualTo(409);
        assertThat(result(id, 2, "SUCCESS", "")).isEqualTo(200);
        assertThat(f.executions(id)).extracting(e -> e.get("outcome").asText()).containsExactly("TIMEOUT", "SUCCESS");
    }

    @Test
    void retryAndFailResultsAreApplied() {
        String retried = deliveredJob(patient);
        assertThat(result(retried, 1, "RETRY", ",\"retryAfterMs\":300,\"message\":\"later\""))
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> f.receiver.receivedFor(retried).size() == 2);
        Received second = f.receiver.receivedFor(retried).get(1);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.at() - f.receiver.receivedFor(retried).get(0).at()).isGreaterThanOrEqualTo(300);
        assertThat(result(retried, 2, "FAIL", ",\"message\":\"unknown order\"")).isEqualTo(200);
        assertThat(f.state(retried)).isEqualTo("FAILED");
        assertThat(f.job(retried).get("lastError").asText()).isEqualTo("unknown order");
        assertThat(f.app.post("/api/v1/jobs/" + retried + "/result", "{\"attempt\":2}")
                        .status())
                .isEqualTo(400);
    }
}
