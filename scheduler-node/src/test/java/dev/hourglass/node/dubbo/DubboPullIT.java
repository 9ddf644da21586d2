package dev.hourglass.node.dubbo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.DelayJobService;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.api.Reservation;
import dev.hourglass.api.ReserveRequest;
import dev.hourglass.api.ResultAnswer;
import dev.hourglass.api.ResultReport;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.sdk.dubbo.HourglassDubboClient;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.rpc.RpcContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Pull consumers over Dubbo, as a plain Dubbo client calls {@code DelayJobService}: reserve (at
 * once and as a long poll answered later, through Dubbo's AsyncContext), the batch of results,
 * touch, and bad input refused with its field. Same semantics as HTTP (docs/api.md, "Pull
 * consumers").
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@RunsAlongside
class DubboPullIT {
    DubboNode hg;
    DubboNode.PlainClient client;
    DelayJobService dubbo;
    String service = "order-close";

    @BeforeAll
    void start() throws Exception {
        hg = new DubboNode();
        assertThat(hg.app
                        .put("/api/v1/services/" + service, "{\"protocol\":\"PULL\"}")
                        .status())
                .isEqualTo(200);
        client = hg.plainClient("pull-client", 15_000); // beyond the longest wait asked here
        dubbo = client.service();
    }

    @AfterAll
    void stop() throws Exception {
        client.close();
        hg.close();
    }

    private <T> T call(java.util.function.Supplier<T> call) {
        RpcContext.getClientAttachment().setAttachment(DelayJobService.TOKEN_ATTACHMENT, hg.appToken);
        return call.get();
    }

    private String submit(long delayMs) {
        return hg.app
                .post(
                        "/api/v1/jobs",
                        "{\"service\":\"" + service + "\",\"delayMs\":" + delayMs + ",\"payload\":{\"n\":1}}")
                .json()
                .get("id")
                .asText();
    }

    private static ReserveRequest request(int max, Long waitMs) {
        return new ReserveRequest()
                .setServices(List.of("order-close"))
                .setMax(max)
                .setTtrMs(60_000L)
                .setWaitMs(waitMs);
    }

    @Test
    void reserveAcknowledgeInABatchAndTouch() {
        String a = submit(0);
        String b = submit(0);
        List<Reservation> got = call(() -> dubbo.reserve(request(10, null)));
        assertThat(got).extracting(Reservation::getId).containsExactly(a, b);
        assertThat(got).allSatisfy(r -> {
            assertThat(r.getAttempt()).isEqualTo(1);
            assertThat(r.getState()).isEqualTo(JobState.RUNNING);
            assertThat(r.getDeadline().toEpochMilli()).isGreaterThan(System.currentTimeMillis() + 50_000);
            assertThat(r.getPayload()).isEqualTo("{\"n\":1}");
        });
        Reservation touched = call(() -> dubbo.touch(b, 1, 120_000));
        assertThat(touched.getDeadline().toEpochMilli()).isGreaterThan(System.currentTimeMillis() + 110_000);
        // 0: the default TTR, the service's timeout (30 s), as a touch without ttrMs over HTTP
        long before = System.currentTimeMillis();
        Reservation byDefault = call(() -> dubbo.touch(b, 1, 0));
        assertThat(byDefault.getDeadline().toEpochMilli())
                .isBetween(before + 30_000, System.currentTimeMillis() + 30_000);
        List<ResultAnswer> answers = call(() -> dubbo.reportResults(List.of(
                new ResultReport().setJobId(a).setAttempt(1).setStatus(CallbackStatus.SUCCESS),
                new ResultReport().setJobId(b).setAttempt(2).setStatus(CallbackStatus.SUCCESS),
                new ResultReport()
                        .setJobId(b)
                        .setAttempt(1)
                        .setStatus(CallbackStatus.RELEASE)
                        .setDelayMs(60_000L))));
        assertThat(answers)
                .extracting(ResultAnswer::getState)
                .containsExactly(JobState.FINISHED, null, JobState.DELAYED);
        assertThat(answers.get(1).getErrorCode()).isEqualTo(ErrorCode.CONFLICT);
        assertThat(answers.get(1).getErrorField()).isEqualTo("attempt");
        HourglassException stale =
                catchThrowableOfType(HourglassException.class, () -> call(() -> dubbo.touch(b, 1, 5_000)));
        assertThat(stale.code()).isEqualTo(ErrorCode.CONFLICT);
        assertThat(stale.field()).isEqualTo("attempt");
    }

    /**
     * A client that found the node through the registry and set nothing: the node's own settings
     * for {@code reserve} (a timeout beyond the longest wait, no retry) reach it, so its long poll
     * is not cut at Dubbo's default second and asked again by its failover.
     */
    @Test
    void aLongPollThroughTheRegistryWithDubbosDefaultsWaitsItsTimeOnce() throws Exception {
        try (DubboNode.PlainClient defaults = hg.registryClient("pull-defaults")) {
            long start = System.currentTimeMillis();
            List<Reservation> got = call(() -> defaults.service().reserve(request(1, 2_500L)));
            long took = System.currentTimeMillis() - start;
            assertThat(got).isEmpty();
            // below twice the wait: asked once, not again by a failover (the class runs at low
            // priority beside the timed classes, README "Tests": seconds of slack, not one)
            assertThat(took).as("waited its 2.5 s, not cut at 1 s").isBetween(2_400L, 4_900L);
        }
    }

    @Test
    void aLongPollIsAnsweredWhenAJobComes() throws Exception {
        CompletableFuture<List<Reservation>> waiting =
                CompletableFuture.supplyAsync(() -> call(() -> dubbo.reserve(request(1, 10_000L))));
        Thread.sleep(300);
        assertThat(waiting).isNotDone();
        String id = submit(0);
        // answered by the job, not by the wait's end: the poll waited 10 s and would answer empty
        assertThat(waiting.get(14, TimeUnit.SECONDS))
                .extracting(Reservation::getId)
                .containsExactly(id);
        long start = System.currentTimeMillis();
        assertThat(call(() -> dubbo.reserve(request(1, 500L)))).isEmpty();
        assertThat(System.currentTimeMillis() - start).isGreaterThanOrEqualTo(450);
    }

    @Test
    void theSdksDubboClientWaitsLongerThanItsCallTimeoutForAReserve() {
        try (HourglassDubboClient sdk = HourglassDubboClient.direct(hg.directUrl(), hg.appToken)) {
            long start = System.currentTimeMillis();
            // the client's calls time out after 10 s; a reserve may wait up to 30 s
            assertThat(sdk.service().reserve(request(1, 10_500L))).isEmpty();
            assertThat(System.currentTimeMillis() - start).isGreaterThanOrEqualTo(10_400);
        }
    }

    @Test
    void badInputIsRefusedWithItsField() {
        HourglassException e = catchThrowableOfType(
                HourglassException.class,
                () -> call(() -> dubbo.reserve(new ReserveRequest().setServices(List.of("nope")))));
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(e.field()).isEqualTo("services");
        e = catchThrowableOfType(HourglassException.class, () -> call(() -> dubbo.reserve(request(101, null))));
        assertThat(e.field()).isEqualTo("max");
        e = catchThrowableOfType(HourglassException.class, () -> call(() -> dubbo.touch("12", 1, 10)));
        assertThat(e.field()).isEqualTo("ttrMs");
        // an attempt never set arrives as 0 over Dubbo: refused for its field, not a 409
        String id = submit(0);
        assertThat(call(() -> dubbo.reserve(request(1, null))))
                .extracting(Reservation::getId)
                .containsExactly(id);
        List<ResultAnswer> unset = call(() ->
                dubbo.reportResults(List.of(new ResultReport().setJobId(id).setStatus(CallbackStatus.SUCCESS))));
        assertThat(unset.get(0).getErrorCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(unset.get(0).getErrorField()).isEqualTo("attempt");
        e = catchThrowableOfType(
                HourglassException.class,
                () -> call(() -> dubbo.reportResult(id, new ResultReport().setStatus(CallbackStatus.SUCCESS))));
        assertThat(e.field()).isEqualTo("attempt");
        assertThat(hg.app.get("/api/v1/jobs/" + id).json().get("state").asText())
                .as("nothing changed")
                .isEqualTo("RUNNING");
    }
}
