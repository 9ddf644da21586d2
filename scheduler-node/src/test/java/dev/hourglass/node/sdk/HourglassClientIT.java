package dev.hourglass.node.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobChange;
import dev.hourglass.api.JobState;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.JobView;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.sdk.CallbackVerifier;
import dev.hourglass.sdk.HourglassClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The SDK's submit client and signature verifier against a real node. */
class HourglassClientIT {
    static NodeFixture f;
    static HourglassClient client;
    static String service;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture();
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
}
