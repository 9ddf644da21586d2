package dev.hourglass.node.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.hourglass.api.BatchItemResult;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.ExecutionView;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobChange;
import dev.hourglass.api.JobState;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.JobView;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.sdk.CallbackVerifier;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.JobPage;
import dev.hourglass.sdk.JobSearch;
import dev.hourglass.sdk.http.CallbackHandler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The SDK's submit client and signature verifier against a real node. */
@RunsAlongside
class HourglassClientIT {
    static NodeFixture f;
    static HourglassClient client;
    static String service;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture(c -> c.dubbo.enabled = false); // the SDK's HTTP client
        service = f.httpService("");
        client = HourglassClient.create(f.node.baseUrl(), f.appToken);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void submitSyncAndAsyncThenTheCallbackVerifies() {
        JobView sync = client.submit(new JobSubmission()
                .setService(service)
                .setDelayMs(200L)
                .setPayload("{\"orderId\":42}")
                .setAttributes(Map.of("tenant", "eu")));
        List<CompletableFuture<JobView>> async = List.of(
                client.submitAsync(
                        new JobSubmission().setService(service).setDelayMs(300L).setPayload("\"text\"")),
                client.submitAsync(
                        new JobSubmission().setService(service).setDelayMs(300L).setPayload("[1,2]")));
        List<String> ids = new java.util.ArrayList<>(List.of(sync.getId()));
        async.forEach(a -> ids.add(a.join().getId()));
        assertThat(sync.getState()).isEqualTo(JobState.DELAYED);
        assertThat(sync.getPayload()).isEqualTo("{\"orderId\":42}");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ids.stream().allMatch(id -> client.get(id).getState() == JobState.FINISHED));
        String secret = f.app.get("/api/v1/services/" + service)
                .json()
                .get("signingSecret")
                .asText();
        CallbackVerifier verifier = new CallbackVerifier(secret);
        for (String id : ids) {
            Received r = f.receiver.receivedFor(id).get(0);
            assertThat(verifier.verify(r.signature(), r.body().getBytes(StandardCharsets.UTF_8)))
                    .isTrue();
        }
    }

    @Test
    void theSdkCallbackHandlerServesARealNode() throws Exception {
        String secret = "sdk-secret-sdk-secret-sdk-secret-0";
        com.sun.net.httpserver.HttpServer server =
                com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(
                "/good",
                new CallbackHandler(secret, request -> {
                            if (request.getPayload().contains("fail")) {
                                return CallbackResult.fail("refused");
                            }
                            if (request.getPayload().contains("retry") && request.getAttempt() == 1) {
                                return CallbackResult.retryAfter(200, "later");
                            }
                            return CallbackResult.success();
                        })
                        .asHttpHandler());
        server.createContext(
                "/wrong-secret", new CallbackHandler("x".repeat(32), r -> CallbackResult.success()).asHttpHandler());
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            f.app.put(
                    "/api/v1/services/sdk",
                    "{\"protocol\":\"HTTP\",\"url\":\"" + base + "/good\",\"signingSecret\":\"" + secret
                            + "\",\"backoff\":{\"initialMs\":100}}");
            f.app.put(
                    "/api/v1/services/sdk-wrong",
                    "{\"protocol\":\"HTTP\",\"url\":\"" + base + "/wrong-secret\",\"signingSecret\":\"" + secret
                            + "\",\"maxAttempts\":2,\"backoff\":{\"initialMs\":100}}");
            String ok = client.submit(
                            new JobSubmission().setService("sdk").setDelayMs(0L).setPayload("{\"a\":1}"))
                    .getId();
            String failed = client.submit(
                            new JobSubmission().setService("sdk").setDelayMs(0L).setPayload("\"fail\""))
                    .getId();
            String retried = client.submit(
                            new JobSubmission().setService("sdk").setDelayMs(0L).setPayload("\"retry\""))
                    .getId();
            String unsigned = client.submit(
                            new JobSubmission().setService("sdk-wrong").setDelayMs(0L))
                    .getId();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> client.get(ok).getState() == JobState.FINISHED
                            && client.get(failed).getState() == JobState.FAILED
                            && client.get(retried).getState() == JobState.FINISHED
                            && client.get(unsigned).getState() == JobState.FAILED);
            assertThat(client.get(failed).getLastError()).isEqualTo("refused");
            assertThat(client.get(retried).getAttempts()).isEqualTo(2);
            assertThat(client.get(unsigned).getLastError()).isEqualTo("HTTP 401");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void errorsAreTypedWithTheApiCode() {
        assertThatThrownBy(() ->
                        client.submit(new JobSubmission().setService("missing").setDelayMs(5L)))
                .isInstanceOfSatisfying(HourglassException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.field()).isEqualTo("service");
                });
        assertThatThrownBy(() -> client.get("99"))
                .isInstanceOfSatisfying(
                        HourglassException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        HourglassClient stranger = HourglassClient.create(f.node.baseUrl(), "hg_wrong");
        assertThatThrownBy(() -> stranger.get("1"))
                .isInstanceOfSatisfying(
                        HourglassException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHENTICATED));
        HourglassClient nobody = HourglassClient.create("http://127.0.0.1:1", "t");
        assertThatThrownBy(() -> nobody.get("1"))
                .isInstanceOfSatisfying(
                        HourglassException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
    }

    @Test
    void manageAJob() {
        JobView job = client.submit(new JobSubmission().setService(service).setDelayMs(3_600_000L));
        JobView moved = client.reschedule(job.getId(), new JobChange().setDelayMs(7_200_000L));
        assertThat(moved.getFireAt()).isAfter(job.getFireAt());
        assertThat(client.cancel(job.getId()).getState()).isEqualTo(JobState.CANCELED);
        assertThatThrownBy(() -> client.fireNow(job.getId()))
                .isInstanceOfSatisfying(
                        HourglassException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(client.retry(job.getId(), null).getState()).isEqualTo(JobState.DELAYED);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.get(job.getId()).getState() == JobState.FINISHED);
    }

    /** A payload type of the caller's, written and read through the client's mapper. */
    record CloseOrder(long orderId, String reason) {}

    @Test
    void batchSubmitFindByBizKeySearchAndReadTheAttempts() {
        String key = "order-" + System.nanoTime();
        List<BatchItemResult> batch = client.submitBatch(List.of(
                new JobSubmission()
                        .setService(service)
                        .setDelayMs(10L)
                        .setBizKey(key)
                        .setPayload(client.toPayload(new CloseOrder(42, "unpaid"))),
                new JobSubmission().setService("missing").setDelayMs(10L),
                new JobSubmission().setService(service).setDelayMs(3_600_000L).setBizKey(key + "-later")));
        assertThat(batch).hasSize(3);
        assertThat(batch.get(0).getJob().getBizKey()).isEqualTo(key);
        assertThat(batch.get(1).getJob()).isNull();
        assertThat(batch.get(1).getErrorCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(batch.get(1).getErrorField()).isEqualTo("service");
        String id = batch.get(0).getJob().getId();

        JobView found = client.getByBizKey(key).orElseThrow();
        assertThat(found.getId()).isEqualTo(id);
        assertThat(client.payload(found, CloseOrder.class)).isEqualTo(new CloseOrder(42, "unpaid"));
        assertThat(client.getByBizKey(key + "-none")).isEmpty();

        await().atMost(Duration.ofSeconds(10)).until(() -> client.get(id).getState() == JobState.FINISHED);
        List<ExecutionView> attempts = client.executions(id);
        assertThat(attempts).singleElement().satisfies(a -> {
            assertThat(a.getAttempt()).isEqualTo(1);
            assertThat(a.getOutcome()).isEqualTo("SUCCESS");
            assertThat(a.getNode()).isNotBlank();
            assertThat(a.getFiredAt()).isNotNull();
        });

        JobPage delayed = client.search(
                new JobSearch().service(service).state(JobState.DELAYED).bizKey(key + "-later"));
        assertThat(delayed.items())
                .extracting(JobView::getId)
                .containsExactly(batch.get(2).getJob().getId());
        assertThat(delayed.hasNext()).isFalse();
        JobPage first = client.search(new JobSearch().service(service).limit(1));
        assertThat(first.items()).hasSize(1);
        assertThat(first.hasNext()).isTrue();
        JobPage second = client.search(new JobSearch().service(service).limit(1).cursor(first.nextCursor()));
        assertThat(second.items()).hasSize(1);
        assertThat(second.items().get(0).getId())
                .isNotEqualTo(first.items().get(0).getId());
    }

    @Test
    void aResentBizKeySubmitAnswersTheStoredJobAndGeneratedBizKeysAreKept() {
        HourglassClient keyed = HourglassClient.builder()
                .baseUrls(f.node.baseUrl())
                .token(f.appToken)
                .generateBizKeys(true)
                .build();
        JobView job = keyed.submit(new JobSubmission().setService(service).setDelayMs(3_600_000L));
        assertThat(job.getBizKey()).startsWith("hgc-");
        JobView again = keyed.submit(
                new JobSubmission().setService(service).setDelayMs(7_200_000L).setBizKey(job.getBizKey()));
        assertThat(again.getId()).isEqualTo(job.getId());
        assertThat(again.getFireAt()).isEqualTo(job.getFireAt());
    }
}
