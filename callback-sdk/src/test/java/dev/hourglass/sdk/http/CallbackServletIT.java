package dev.hourglass.sdk.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.CallbackRequest;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.CallbackSignature;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link CallbackServlet} in a real servlet container (Jetty 12, ee10) on 127.0.0.1. */
@Tag("alongside") // may run beside another such class: see the parent POM's failsafe executions
class CallbackServletIT {
    private static final String SECRET = "0123456789abcdef0123456789abcdef";
    private static final byte[] BODY =
            ("{\"jobId\":\"42\",\"app\":\"shop\",\"service\":\"close\",\"bizKey\":\"order-42\","
                            + "\"attempt\":1,\"maxAttempts\":5,\"fireAt\":\"2026-11-21T15:30:00.000Z\","
                            + "\"firedAt\":\"2026-11-21T15:30:00.002Z\",\"payload\":{\"orderId\":42},\"attributes\":{}}")
                    .getBytes(StandardCharsets.UTF_8);

    final List<CallbackRequest> received = new CopyOnWriteArrayList<>();
    Server jetty;
    URI url;

    @BeforeEach
    void start() throws Exception {
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        CallbackHandler handler = new CallbackHandler(SECRET, request -> {
            received.add(request);
            return CallbackResult.retryAfter(2_000, "order locked");
        });
        context.addServlet(new ServletHolder(new CallbackServlet(handler)), "/callbacks/close");
        jetty.setHandler(context);
        jetty.start();
        url = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/callbacks/close");
    }

    @AfterEach
    void stop() throws Exception {
        jetty.stop();
    }

    private HttpResponse<String> post(String signature, byte[] body) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(url)
                                .header(CallbackSignature.HEADER, signature)
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aSignedCallbackIsAnsweredWithTheImplementationsResult() throws Exception {
        HttpResponse<String> response = post(CallbackSignature.sign(SECRET, System.currentTimeMillis(), BODY), BODY);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        assertThat(response.body())
                .isEqualTo("{\"status\":\"RETRY\",\"retryAfterMs\":2000,\"message\":\"order locked\"}");
        assertThat(received).hasSize(1);
        assertThat(received.get(0).getJobId()).isEqualTo("42");
        assertThat(received.get(0).getPayload()).isEqualTo("{\"orderId\":42}");
    }

    @Test
    void aForgedStaleOrTamperedCallbackIsRefusedAndNeverReachesTheImplementation() throws Exception {
        long now = System.currentTimeMillis();
        assertThat(post(CallbackSignature.sign("another-secret-0123456789abcdefgh", now, BODY), BODY)
                        .statusCode())
                .isEqualTo(401);
        assertThat(post(CallbackSignature.sign(SECRET, now - 3_600_000, BODY), BODY)
                        .statusCode())
                .isEqualTo(401);
        byte[] tampered = new String(BODY, StandardCharsets.UTF_8)
                .replace("\"orderId\":42", "\"orderId\":43")
                .getBytes(StandardCharsets.UTF_8);
        assertThat(post(CallbackSignature.sign(SECRET, now, BODY), tampered).statusCode())
                .isEqualTo(401);
        assertThat(received).isEmpty();
    }
}
