package dev.hourglass.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.JobView;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When {@link HourglassClient} sends a call again, against a real HTTP server that answers from a
 * script: refusals with and without {@code Retry-After}, a connection closed with no answer (the
 * outcome unknown), a port nobody listens on, a second base URL.
 */
class HourglassClientRetryTest {
    private static final String JOB = "{\"id\":\"7\",\"app\":\"shop\",\"service\":\"close\",\"bizKey\":%s,"
            + "\"state\":\"DELAYED\",\"fireAt\":\"2026-11-21T15:30:00.000Z\",\"createdAt\":\"2026-11-21T15:00:00.000Z\","
            + "\"updatedAt\":\"2026-11-21T15:00:00.000Z\",\"attempts\":0,\"maxAttempts\":3,\"timeoutMs\":30000,"
            + "\"payload\":{\"order_id\":42},\"attributes\":{},\"shard\":3}";

    /** One scripted answer: a status with a body and headers, or {@link #DROP}. */
    record Answer(int status, String body, String retryAfter) {}

    /** Reads the request, then closes the connection with no answer: the caller cannot tell what happened. */
    static final Answer DROP = new Answer(-1, null, null);

    private HttpServer server;
    private ExecutorService threads;
    private final Deque<Answer> script = new ArrayDeque<>();
    private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
    private final List<Long> arrivals = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        threads = Executors.newFixedThreadPool(2);
        server.setExecutor(threads);
        server.createContext("/", this::answer);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        threads.shutdownNow();
    }

    private void answer(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + body);
        arrivals.add(System.nanoTime());
        Answer a;
        synchronized (script) {
            a = script.isEmpty() ? new Answer(200, job("null"), null) : script.poll();
        }
        if (a == DROP) { // the request was read: now nothing comes back
            exchange.close();
            return;
        }
        byte[] bytes = a.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        if (a.retryAfter() != null) {
            exchange.getResponseHeaders().add("Retry-After", a.retryAfter());
        }
        exchange.sendResponseHeaders(a.status(), bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private void then(Answer... answers) {
        synchronized (script) {
            script.addAll(List.of(answers));
        }
    }

    private static String job(String bizKey) {
        return String.format(JOB, bizKey);
    }

    private static Answer error(int status, String code, String retryAfter) {
        return new Answer(status, "{\"error\":{\"code\":\"" + code + "\",\"message\":\"scripted\"}}", retryAfter);
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private HourglassClient.Builder client() {
        return HourglassClient.builder()
                .baseUrls(url())
                .token("hg_test")
                .retries(3, Duration.ofMillis(20), Duration.ofMillis(100));
    }

    private static JobSubmission submission() {
        return new JobSubmission().setService("close").setDelayMs(60_000L);
    }

    @Test
    void aRateLimitedCallWaitsTheRetryAfterThenGoesThrough() {
        then(error(429, "RATE_LIMITED", "1"));
        JobView job = client().build().submit(submission());
        assertThat(job.getId()).isEqualTo("7");
        assertThat(requests).hasSize(2);
        long waitedMs = (arrivals.get(1) - arrivals.get(0)) / 1_000_000;
        assertThat(waitedMs).as("the node's Retry-After of 1 s").isBetween(950L, 3_000L);
    }

    @Test
    void anUnavailableNodeChangedNothingSoEvenACancelIsSentAgain() {
        then(error(503, "UNAVAILABLE", null));
        assertThat(client().build().cancel("7").getId()).isEqualTo("7");
        assertThat(requests).hasSize(2).allMatch(r -> r.startsWith("DELETE /api/v1/jobs/7"));
    }

    @Test
    void aSubmitWithoutABizKeyWhoseAnswerWasLostIsNotSentAgain() {
        then(DROP);
        assertThatThrownBy(() -> client().build().submit(submission()))
                .isInstanceOfSatisfying(HourglassException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
                    assertThat(e.getCause()).as("the I/O failure is kept").isInstanceOf(IOException.class);
                });
        assertThat(requests)
                .as("it may have been stored: a second one could make a second job")
                .hasSize(1);
    }

    @Test
    void aSubmitWithABizKeyWhoseAnswerWasLostIsSentAgainWithTheSameKey() {
        then(DROP, new Answer(200, job("\"order-42\""), null));
        JobView job = client().build().submit(submission().setBizKey("order-42"));
        assertThat(job.getBizKey()).isEqualTo("order-42");
        assertThat(requests).hasSize(2);
        assertThat(requests.get(0)).isEqualTo(requests.get(1));
    }

    @Test
    void generatedBizKeysMakeEverySubmitSafeToSendAgain() {
        then(DROP);
        client().generateBizKeys(true).build().submit(submission());
        assertThat(requests).hasSize(2);
        assertThat(requests.get(0)).contains("\"bizKey\":\"hgc-").isEqualTo(requests.get(1));
    }

    @Test
    void anInternalErrorIsSentAgainOnlyForAReadAndOtherRefusalsNever() {
        then(error(500, "INTERNAL", null));
        assertThatThrownBy(() -> client().build().fireNow("7"))
                .isInstanceOfSatisfying(
                        HourglassException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL));
        assertThat(requests).hasSize(1);

        then(error(500, "INTERNAL", null));
        assertThat(client().build().get("7").getId()).isEqualTo("7");
        assertThat(requests).hasSize(3);

        then(error(409, "CONFLICT", null));
        assertThatThrownBy(() -> client().build().get("7"))
                .isInstanceOfSatisfying(
                        HourglassException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(requests).hasSize(4);
    }

    @Test
    void aProxysGatewayTimeoutLeavesTheOutcomeUnknownButItsServiceUnavailableDoesNot() {
        then(new Answer(504, "<html>gateway timeout</html>", null));
        assertThatThrownBy(() -> client().build().cancel("7"))
                .isInstanceOfSatisfying(
                        HourglassException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL));
        assertThat(requests).as("it may have reached a node").hasSize(1);

        then(new Answer(503, "<html>no upstream</html>", null));
        assertThat(client().build().cancel("7").getId()).isEqualTo("7");
        assertThat(requests).hasSize(3);
    }

    @Test
    void triesStopAtTheLimitAndOneTryMeansNoRetry() {
        then(error(503, "UNAVAILABLE", null), error(503, "UNAVAILABLE", null), error(503, "UNAVAILABLE", null));
        assertThatThrownBy(() -> client().build().get("7"))
                .isInstanceOfSatisfying(
                        HourglassException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
        assertThat(requests).hasSize(3);

        then(error(503, "UNAVAILABLE", null));
        HourglassClient noRetries =
                client().retries(1, Duration.ZERO, Duration.ZERO).build();
        assertThatThrownBy(() -> noRetries.get("7")).isInstanceOf(HourglassException.class);
        assertThat(requests).hasSize(4);
    }

    @Test
    void aRetryAfterBeyondTheLimitFailsAtOnceAndSaysHowLongToWait() {
        then(error(429, "RATE_LIMITED", "120"));
        long started = System.nanoTime();
        assertThatThrownBy(() ->
                        client().maxRetryAfter(Duration.ofSeconds(10)).build().submit(submission()))
                .isInstanceOfSatisfying(HourglassException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.RATE_LIMITED);
                    assertThat(e.retryAfterMs()).isEqualTo(120_000L);
                });
        assertThat(requests).hasSize(1);
        assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(5_000L);
    }

    @Test
    void aNodeThatRefusesConnectionsIsPassedForTheNextBaseUrlEvenForASubmit() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        HourglassClient client = HourglassClient.builder()
                .baseUrls("http://127.0.0.1:" + closedPort, url())
                .token("hg_test")
                .retries(3, Duration.ofMillis(20), Duration.ofMillis(100))
                .build();
        assertThat(client.submit(submission()).getId())
                .as("never sent: safe to send anywhere")
                .isEqualTo("7");
        assertThat(client.get("7").getId()).isEqualTo("7");
        assertThat(requests)
                .as("the second call went straight to the address that answered")
                .hasSize(2);
    }

    /** A payload in the caller's snake_case, written and read through the caller's mapper. */
    record CloseOrder(long orderId) {}

    @Test
    void payloadsAreTypedThroughTheCallersMapper() {
        ObjectMapper snake = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        HourglassClient client = client().objectMapper(snake).build();
        assertThat(client.toPayload(new CloseOrder(42))).isEqualTo("{\"order_id\":42}");
        JobView job = client.submit(submission().setPayload(client.toPayload(new CloseOrder(42))));
        assertThat(requests.get(0)).contains("\"payload\":{\"order_id\":42}");
        assertThat(client.payload(job, CloseOrder.class)).isEqualTo(new CloseOrder(42));
        assertThatThrownBy(() -> client.payload(job, Integer.class))
                .isInstanceOfSatisfying(HourglassException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.getCause()).isNotNull();
                });
    }

    @Test
    void aSearchSendsItsFiltersEncoded() {
        then(new Answer(200, "{\"items\":[" + job("\"a b\"") + "],\"nextCursor\":\"c1\"}", null));
        JobPage page = client().build()
                .search(new JobSearch()
                        .bizKey("a b")
                        .state(dev.hourglass.api.JobState.DELAYED)
                        .limit(5));
        assertThat(requests.get(0)).startsWith("GET /api/v1/jobs?bizKey=a+b&state=DELAYED&limit=5 ");
        assertThat(page.items()).singleElement().satisfies(j -> assertThat(j.getBizKey())
                .isEqualTo("a b"));
        assertThat(page.nextCursor()).isEqualTo("c1");
    }

    /** What an observer is told of each call: the operation, how often it was sent, its outcome. */
    record Observed(String operation, int sends, ErrorCode failure) {}

    @Test
    void theObserverIsToldOfEachCallItsSendsAndItsOutcome() {
        List<Observed> observed = Collections.synchronizedList(new ArrayList<>());
        HourglassClient hourglass = client().observer((operation, took, sends, failure) -> {
                    assertThat(took).isPositive();
                    observed.add(new Observed(operation, sends, failure));
                })
                .build();
        then(error(503, "UNAVAILABLE", null), new Answer(201, job("\"order-42\""), null));
        hourglass.submit(submission().setBizKey("order-42"));
        then(error(404, "NOT_FOUND", null));
        assertThatThrownBy(() -> hourglass.get("8")).isInstanceOf(HourglassException.class);

        assertThat(observed)
                .containsExactly(new Observed("submit", 2, null), new Observed("get", 1, ErrorCode.NOT_FOUND));
    }

    @Test
    void anObserverThatThrowsLeavesTheCallsOutcomeAlone() {
        HourglassClient hourglass = client().observer((operation, took, sends, failure) -> {
                    throw new IllegalStateException("a broken meter");
                })
                .build();
        then(new Answer(201, job("\"order-43\""), null));
        assertThat(hourglass.submit(submission().setBizKey("order-43")).getBizKey())
                .isEqualTo("order-43");
        assertThat(requests)
                .as("sent once: the observer's failure is no reason to resend")
                .hasSize(1);
    }

    @Test
    void nodeReadyAsksTheNodesHealthEndpoint() throws IOException {
        HourglassClient hourglass = client().build();
        assertThat(hourglass.nodeReady(Duration.ofSeconds(2))).isTrue();
        assertThat(requests).containsExactly("GET /health/ready ");
        then(error(503, "UNAVAILABLE", null));
        assertThat(hourglass.nodeReady(Duration.ofSeconds(2))).isFalse();

        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        HourglassClient nobody = HourglassClient.builder()
                .baseUrls("http://127.0.0.1:" + closed)
                .token("hg_test")
                .build();
        assertThat(nobody.nodeReady(Duration.ofSeconds(2))).isFalse();
        assertThat(nobody.currentBaseUrl()).isEqualTo("http://127.0.0.1:" + closed + "/");
    }
}
