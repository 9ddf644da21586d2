package dev.hourglass.node.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.CallbackSignature;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.sdk.CallbackVerifier;
import dev.hourglass.sdk.http.CallbackHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rotation procedure of docs/security.md against a real node and the SDK's handler: receivers
 * deployed with both secrets, then the service given its new secret, then the old one dropped — no
 * callback refused on the way; and what happens when a receiver does not know the new secret yet.
 */
@RunsAlongside
class SigningSecretRotationIT {
    private static final String OLD = "old-secret-old-secret-old-secret-0";
    private static final String NEW = "new-secret-new-secret-new-secret-1";
    /** Which of (NEW, OLD) signed each job's callback, as the receiver saw it. */
    private static final CallbackVerifier WHICH = new CallbackVerifier(List.of(NEW, OLD));

    static NodeFixture f;
    static HttpServer receiver;
    /** The receiver as deployed now: its handler, with the secrets it knows. */
    static final AtomicReference<CallbackHandler> deployed = new AtomicReference<>();

    static final Map<String, Integer> signedWith = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture(c -> c.dubbo.enabled = false); // HTTP only
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        receiver.createContext("/close", SigningSecretRotationIT::receive);
        receiver.start();
    }

    @AfterAll
    static void stop() {
        if (receiver != null) {
            receiver.stop(0);
        }
        f.close();
    }

    private static void receive(HttpExchange exchange) throws IOException {
        byte[] body = exchange.getRequestBody().readAllBytes();
        String signature = exchange.getRequestHeaders().getFirst(CallbackSignature.HEADER);
        String jobId = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(body)
                .path("jobId")
                .asText();
        signedWith.put(jobId, WHICH.secretIndex(signature, body));
        CallbackHandler.Answer answer = deployed.get().handle(signature, body);
        byte[] out = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(answer.status(), out.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(out);
        }
    }

    private static CallbackHandler knowing(String... secrets) {
        return new CallbackHandler(List.of(secrets), request -> CallbackResult.success());
    }

    private static void putService(String secret) {
        var answer = f.app.put(
                "/api/v1/services/rotating",
                "{\"protocol\":\"HTTP\",\"url\":\"http://127.0.0.1:"
                        + receiver.getAddress().getPort()
                        // attempts enough to outlast the test's steps short of CPU (README,
                        // "Tests"): ten at 200 ms were gone in 2-3 s
                        + "/close\",\"maxAttempts\":1000,\"backoff\":{\"initialMs\":200,\"maxMs\":200},"
                        + "\"signingSecret\":\"" + secret + "\"}");
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    }

    private static String finishedJob() {
        String id = f.submit("rotating", 0, "").get("id").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> "FINISHED".equals(f.state(id)));
        return id;
    }

    @Test
    void receiversWithBothSecretsThenTheNewSecretThenTheNewOneAloneRefuseNoCallback() {
        deployed.set(knowing(OLD));
        putService(OLD);
        String before = finishedJob();

        deployed.set(knowing(NEW, OLD)); // 1. receivers deployed with both
        String during = finishedJob();

        putService(NEW); // 2. the service signs with the new secret
        assertThat(f.app.get("/api/v1/services/rotating")
                        .json()
                        .get("signingSecret")
                        .asText())
                .isEqualTo(NEW);
        String after = finishedJob();

        deployed.set(knowing(NEW)); // 3. the old secret dropped
        String last = finishedJob();

        assertThat(signedWith).containsEntry(before, 1).containsEntry(during, 1);
        assertThat(signedWith)
                .as("signed with the new secret")
                .containsEntry(after, 0)
                .containsEntry(last, 0);
        for (String id : List.of(before, during, after, last)) {
            JsonNode attempts = f.executions(id);
            assertThat(attempts).as("job %s: one attempt, accepted", id).hasSize(1);
            assertThat(attempts.get(0).get("outcome").asText()).isEqualTo("SUCCESS");
        }
    }

    /** Skipping step 1: the receiver refuses the new signature (401), the node retries, nothing is lost. */
    @Test
    void aReceiverThatDoesNotKnowTheNewSecretYetGetsTheCallbackAgainOnceItDoes() {
        deployed.set(knowing(OLD));
        putService(NEW);
        String id = f.submit("rotating", 0, "").get("id").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode attempts = f.executions(id);
            return attempts.size() >= 1 && attempts.get(0).hasNonNull("outcome");
        });
        assertThat(f.executions(id).get(0).get("outcome").asText()).isEqualTo("RETRY");
        deployed.set(knowing(NEW, OLD));
        await().atMost(Duration.ofSeconds(30)).until(() -> "FINISHED".equals(f.state(id)));
    }
}
