package dev.hourglass.node.dubbo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.hourglass.api.BatchItemResult;
import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.DelayJobService;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobChange;
import dev.hourglass.api.JobState;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.JobView;
import dev.hourglass.api.ResultReport;
import dev.hourglass.api.ScheduleDefinition;
import dev.hourglass.api.ScheduleView;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.sdk.dubbo.HourglassDubboClient;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.dubbo.rpc.RpcContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code DelayJobService} over Dubbo, as a client that is not ours calls it: a plain Dubbo
 * reference with the token set as an attachment by hand (direct URL), and the SDK's client through
 * the ZooKeeper registry. Same semantics and error codes as HTTP; bad input changes nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@RunsAlongside
class DubboSubmitIT {
    DubboNode hg;
    CallbackReceiver receiver;
    String service;
    DubboNode.PlainClient plainClient;
    DelayJobService plain;

    @BeforeAll
    void start() throws Exception {
        hg = new DubboNode();
        receiver = new CallbackReceiver();
        service = "order-close";
        assertThat(hg.app
                        .put(
                                "/api/v1/services/" + service,
                                "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}")
                        .status())
                .isEqualTo(200);
        plainClient = hg.plainClient("plain-client", 10_000);
        plain = plainClient.service();
    }

    @AfterAll
    void stop() throws Exception {
        plainClient.close();
        receiver.close();
        hg.close();
    }

    /** Calls with the attachments a client sets by hand (Dubbo clears them after each call). */
    private <T> T as(String token, String app, java.util.function.Supplier<T> call) {
        if (token != null) {
            RpcContext.getClientAttachment().setAttachment(DelayJobService.TOKEN_ATTACHMENT, token);
        }
        if (app != null) {
            RpcContext.getClientAttachment().setAttachment(DelayJobService.APP_ATTACHMENT, app);
        }
        return call.get();
    }

    private JobSubmission job(long delayMs) {
        return new JobSubmission()
                .setService(service)
                .setDelayMs(delayMs)
                .setPayload("{\"orderId\": 42}")
                .setAttributes(new java.util.LinkedHashMap<>(Map.of("region", "eu")));
    }

    private HourglassException error(Runnable call) {
        HourglassException e = catchThrowableOfType(HourglassException.class, call::run);
        assertThat(e).as("a HourglassException").isNotNull();
        return e;
    }

    private int storedJobs() {
        return hg.app.get("/api/v1/jobs?limit=500").json().get("items").size();
    }

    @Test
    void schedulesOverDubboAsOverHttp() {
        ScheduleDefinition daily = new ScheduleDefinition()
                .setService(service)
                .setCron("0 30 9 * * MON-FRI")
                .setTimeZone("Asia/Shanghai")
                .setPayload("{\"report\": \"sales\"}");
        ScheduleView put = as(hg.appToken, null, () -> plain.putSchedule("dubbo-report", daily));
        assertThat(put.getApp()).isEqualTo("shop");
        assertThat(put.getPayload()).isEqualTo("{\"report\":\"sales\"}");
        assertThat(put.getNextFireTimes()).hasSize(5).allMatch(t -> t.toString().endsWith("T01:30:00Z"));
        // the next occurrence is a job already, but no occurrence has come: no last one
        com.fasterxml.jackson.databind.JsonNode submitted =
                hg.app.get("/api/v1/jobs?schedule=dubbo-report").json().get("items");
        assertThat(submitted).hasSize(1);
        assertThat(submitted.get(0).get("state").asText()).isEqualTo("DELAYED");
        assertThat(put.getLastJobId()).isNull();
        assertThat(put.getLastOccurrenceAt()).isNull();
        assertThat(put.getLastJobState()).isNull();
        // the same schedule over HTTP: one store
        assertThat(hg.app
                        .get("/api/v1/schedules/dubbo-report")
                        .json()
                        .get("generation")
                        .asLong())
                .isEqualTo(put.getGeneration());
        assertThat(as(hg.appToken, null, () -> plain.listSchedules(null, 10)))
                .extracting(ScheduleView::getName)
                .contains("dubbo-report");

        ScheduleView paused = as(hg.appToken, null, () -> plain.pauseSchedule("dubbo-report"));
        assertThat(paused.isPaused()).isTrue();
        assertThat(as(hg.appToken, null, () -> plain.getSchedule("dubbo-report"))
                        .isPaused())
                .isTrue();
        assertThat(as(hg.appToken, null, () -> plain.resumeSchedule("dubbo-report"))
                        .isPaused())
                .isFalse();
        JobView now = as(hg.appToken, null, () -> plain.triggerSchedule("dubbo-report", "report-now-1"));
        assertThat(now.getAttributes()).containsEntry("hourglass-schedule", "dubbo-report");
        assertThat(as(hg.appToken, null, () -> plain.triggerSchedule("dubbo-report", "report-now-1"))
                        .getId())
                .isEqualTo(now.getId());

        HourglassException bad = error(() -> as(
                hg.appToken,
                null,
                () -> plain.putSchedule(
                        "dubbo-bad",
                        new ScheduleDefinition().setService(service).setEvery("PT0.1S"))));
        assertThat(bad.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(bad.field()).isEqualTo("every");
        as(hg.appToken, null, () -> {
            plain.deleteSchedule("dubbo-report");
            return null;
        });
        assertThat(error(() -> as(hg.appToken, null, () -> plain.getSchedule("dubbo-report")))
                        .code())
                .isEqualTo(ErrorCode.NOT_FOUND);
    }

    @Test
    void theWholeLifeOfAJobOverDubboDirect() {
        JobView submitted = as(hg.appToken, null, () -> plain.submit(job(60_000).setBizKey("order-42")));
        assertThat(submitted.getState()).isEqualTo(JobState.DELAYED);
        assertThat(submitted.getApp()).isEqualTo("shop");
        assertThat(submitted.getPayload()).isEqualTo("{\"orderId\":42}");
        assertThat(submitted.getAttributes()).containsEntry("region", "eu");
        // the same job over HTTP: one store, one truth
        assertThat(hg.app
                        .get("/api/v1/jobs/" + submitted.getId())
                        .json()
                        .get("payload")
                        .get("orderId")
                        .asInt())
                .isEqualTo(42);

        assertThat(as(hg.appToken, null, () -> plain.submit(job(60_000).setBizKey("order-42")))
                        .getId())
                .as("bizKey idempotence")
                .isEqualTo(submitted.getId());
        assertThat(as(hg.appToken, null, () -> plain.get(submitted.getId())).getFireAt())
                .isEqualTo(submitted.getFireAt());
        assertThat(as(hg.appToken, null, () -> plain.getByBizKey("order-42")).getId())
                .isEqualTo(submitted.getId());

        Instant later = Instant.now().plusSeconds(3_600);
        JobView moved = as(
                hg.appToken,
                null,
                () -> plain.reschedule(
                        submitted.getId(), new JobChange().setFireAt(later).setPayload("[1,2]")));
        assertThat(moved.getFireAt()).isEqualTo(Instant.ofEpochMilli(later.toEpochMilli()));
        assertThat(moved.getPayload()).isEqualTo("[1,2]");

        JobView canceled = as(hg.appToken, null, () -> plain.cancel(submitted.getId()));
        assertThat(canceled.getState()).isEqualTo(JobState.CANCELED);
        assertThat(error(() -> as(hg.appToken, null, () -> plain.cancel(submitted.getId())))
                        .code())
                .isEqualTo(ErrorCode.CONFLICT);

        JobView revived = as(hg.appToken, null, () -> plain.retry(submitted.getId(), later));
        assertThat(revived.getState()).isEqualTo(JobState.DELAYED);
        as(hg.appToken, null, () -> plain.fireNow(submitted.getId()));
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .until(() -> receiver.countsByJob().containsKey(submitted.getId()));
        HourglassException stale = error(() -> as(
                hg.appToken,
                null,
                () -> plain.reportResult(
                        submitted.getId(), new ResultReport().setAttempt(99).setStatus(CallbackStatus.SUCCESS))));
        assertThat(stale.code()).isEqualTo(ErrorCode.CONFLICT);
    }

    /**
     * Single submits over Dubbo go through the same group commit as HTTP ones: callers at once,
     * some with one bizKey, each answered with its own job (one job per bizKey), all stored.
     */
    @Test
    void concurrentSubmitsAreEachAnsweredWithTheirOwnJob() throws Exception {
        String run = "conc-" + System.nanoTime() + "-";
        java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(24);
        try {
            List<java.util.concurrent.Future<JobView>> answers = new ArrayList<>();
            for (int i = 0; i < 48; i++) {
                // the first 24 carry one of 8 bizKeys (3 callers each); the other 24 none
                String bizKey = i < 24 ? run + (i % 8) : null;
                answers.add(callers.submit(() ->
                        as(hg.appToken, null, () -> plain.submit(job(600_000).setBizKey(bizKey)))));
            }
            java.util.Map<String, java.util.Set<String>> idsByKey = new java.util.HashMap<>();
            java.util.Set<String> ids = new java.util.HashSet<>();
            for (int i = 0; i < answers.size(); i++) {
                JobView v = answers.get(i).get(30, java.util.concurrent.TimeUnit.SECONDS);
                ids.add(v.getId());
                if (i < 24) {
                    assertThat(v.getBizKey()).isEqualTo(run + (i % 8));
                    idsByKey.computeIfAbsent(v.getBizKey(), k -> new java.util.HashSet<>())
                            .add(v.getId());
                }
            }
            assertThat(idsByKey).hasSize(8).allSatisfy((key, jobIds) -> assertThat(jobIds)
                    .hasSize(1));
            assertThat(ids).as("8 keyed jobs and 24 without a key").hasSize(32);
            for (String id : ids) {
                assertThat(hg.app.get("/api/v1/jobs/" + id).status()).isEqualTo(200);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void batchesAnswerItemByItem() {
        List<JobSubmission> batch = new ArrayList<>(Arrays.asList(
                job(60_000),
                job(60_000).setService("no-such-service"),
                job(60_000).setPayload("{not json")));
        List<BatchItemResult> results = as(hg.appToken, null, () -> plain.submitBatch(batch));
        assertThat(results).hasSize(3);
        assertThat(results.get(0).getJob().getState()).isEqualTo(JobState.DELAYED);
        assertThat(results.get(1).getErrorCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(results.get(1).getErrorField()).isEqualTo("service");
        assertThat(results.get(2).getErrorField()).isEqualTo("payload");
    }

    @Test
    void outOfBoundsItemsOfABatchGetTheirErrorsAndNothingIsWritten() {
        int before = storedJobs();
        List<JobSubmission> batch = new ArrayList<>(Arrays.asList(
                job(60_000).setDelayMs(null).setFireAt(Instant.MAX),
                job(60_000).setExpireAfterMs(Long.MAX_VALUE),
                job(Long.MAX_VALUE)));
        List<BatchItemResult> results = as(hg.appToken, null, () -> plain.submitBatch(batch));
        assertThat(results).extracting(BatchItemResult::getErrorCode).containsOnly(ErrorCode.INVALID_ARGUMENT);
        assertThat(results)
                .extracting(BatchItemResult::getErrorField)
                .containsExactly("fireAt", "expireAfterMs", "delayMs");
        assertThat(storedJobs()).as("nothing written").isEqualTo(before);
    }

    @Test
    void authenticationFailuresAndBadInputAreTypedErrorsAndChangeNothing() {
        int before = storedJobs();
        assertThat(error(() -> plain.submit(job(60_000))).code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(error(() -> as("not-a-token", null, () -> plain.submit(job(60_000))))
                        .code())
                .isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(error(() -> as("", null, () -> plain.submit(job(60_000)))).code())
                .as("an empty hourglass-token attachment")
                .isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(error(() -> as("", "shop", () -> plain.submit(job(60_000)))).code())
                .as("an empty hourglass-token attachment naming an app")
                .isEqualTo(ErrorCode.UNAUTHENTICATED);
        HourglassException otherApp = error(() -> as(hg.appToken, "bank", () -> plain.submit(job(60_000))));
        assertThat(otherApp.code()).as("another app's: not found").isEqualTo(ErrorCode.NOT_FOUND);
        HourglassException adminWithoutApp = error(
                () -> as(dev.hourglass.node.testing.TestNodes.ADMIN_TOKEN, null, () -> plain.submit(job(60_000))));
        assertThat(adminWithoutApp.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(adminWithoutApp.field()).isEqualTo("app");

        record Case(String name, JobSubmission submission, String field) {}
        List<Case> cases = List.of(
                new Case("unknown service", job(60_000).setService("nope"), "service"),
                new Case("payload not JSON", job(60_000).setPayload("{\"a\":"), "payload"),
                new Case("fireAt and delayMs", job(60_000).setFireAt(Instant.now()), "fireAt"),
                new Case("neither fireAt nor delayMs", job(60_000).setDelayMs(null), "fireAt"),
                new Case("negative delay", job(-5), "delayMs"),
                new Case("maxAttempts 0", job(60_000).setMaxAttempts(0), "maxAttempts"),
                new Case(
                        "bad attribute name",
                        job(60_000).setAttributes(new java.util.LinkedHashMap<>(Map.of("a b", "x"))),
                        "attributes"),
                // Instants a Dubbo client can send that no epoch-millisecond time holds
                new Case("fireAt Instant.MAX", job(60_000).setDelayMs(null).setFireAt(Instant.MAX), "fireAt"),
                new Case("fireAt Instant.MIN", job(60_000).setDelayMs(null).setFireAt(Instant.MIN), "fireAt"),
                new Case("delayMs Long.MAX", job(Long.MAX_VALUE), "delayMs"),
                new Case("expireAfterMs Long.MAX", job(60_000).setExpireAfterMs(Long.MAX_VALUE), "expireAfterMs"),
                new Case("timeoutMs Long.MAX", job(60_000).setTimeoutMs(Long.MAX_VALUE), "timeoutMs"));
        for (Case c : cases) {
            HourglassException e = error(() -> as(hg.appToken, null, () -> plain.submit(c.submission())));
            assertThat(e.code()).as(c.name()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
            assertThat(e.field()).as(c.name()).isEqualTo(c.field());
        }
        String big = "\"" + "x".repeat(70 * 1024) + "\"";
        assertThat(error(() -> as(
                                hg.appToken,
                                null,
                                () -> plain.submit(job(60_000).setPayload(big))))
                        .code())
                .isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
        assertThat(error(() -> as(hg.appToken, null, () -> plain.submit(null))).code())
                .isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(error(() -> as(hg.appToken, null, () -> plain.get("not-a-number")))
                        .code())
                .isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(error(() -> as(hg.appToken, null, () -> plain.get("123456789")))
                        .code())
                .isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(error(() -> as(hg.appToken, null, () -> plain.reschedule("1", null)))
                        .code())
                .isEqualTo(ErrorCode.INVALID_ARGUMENT);
        HourglassException farReschedule =
                error(() -> as(hg.appToken, null, () -> plain.reschedule("1", new JobChange().setFireAt(Instant.MAX))));
        assertThat(farReschedule.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(farReschedule.field()).isEqualTo("fireAt");
        HourglassException farRetry = error(() -> as(hg.appToken, null, () -> plain.retry("1", Instant.MAX)));
        assertThat(farRetry.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(farRetry.field()).isEqualTo("fireAt");
        HourglassException hugeRetryAfter = error(() -> as(
                hg.appToken,
                null,
                () -> plain.reportResult(
                        "1",
                        new ResultReport()
                                .setAttempt(1)
                                .setStatus(CallbackStatus.RETRY)
                                .setRetryAfterMs(Long.MAX_VALUE))));
        assertThat(hugeRetryAfter.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(hugeRetryAfter.field()).isEqualTo("retryAfterMs");
        HourglassException emptyBatch = error(() -> as(hg.appToken, null, () -> plain.submitBatch(List.of())));
        assertThat(emptyBatch.field()).isEqualTo("jobs");
        List<JobSubmission> tooMany = new ArrayList<>();
        for (int i = 0; i < 1_001; i++) {
            tooMany.add(job(60_000));
        }
        HourglassException oversized = error(() -> as(hg.appToken, null, () -> plain.submitBatch(tooMany)));
        assertThat(oversized.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(oversized.field()).isEqualTo("jobs");
        assertThat(storedJobs()).as("nothing written").isEqualTo(before);
    }

    @Test
    void clientErrorsAreAnsweredWithoutAnErrorOrAStackTraceInTheNodesLog() {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger root = (Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(log);
        try {
            HourglassException badToken = error(() -> as("not-a-token", null, () -> plain.submit(job(60_000))));
            assertThat(badToken.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
            HourglassException badInput = error(
                    () -> as(hg.appToken, null, () -> plain.submit(job(60_000).setPayload("{\"a\":"))));
            assertThat(badInput.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
            assertThat(badInput.field()).isEqualTo("payload");
            HourglassException unknownJob = error(() -> as(hg.appToken, null, () -> plain.get("123456789")));
            assertThat(unknownJob.code()).isEqualTo(ErrorCode.NOT_FOUND);
        } finally {
            root.detachAppender(log);
        }
        // Dubbo's ExceptionFilter logs before the answer is written: all is in the list by now
        List<String> loud = log.list.stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR) || e.getThrowableProxy() != null)
                .map(e -> e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage())
                .toList();
        assertThat(loud).as("errors or stack traces logged for client errors").isEmpty();
    }

    @Test
    void theSdkClientFindsTheNodeThroughTheZooKeeperRegistryAtItsLoopbackAddress() throws Exception {
        try (CuratorFramework zk =
                CuratorFrameworkFactory.newClient(hg.zookeeper.getConnectString(), new RetryOneTime(100))) {
            zk.start();
            List<String> providers =
                    zk.getChildren().forPath("/dubbo/" + DelayJobService.class.getName() + "/providers");
            assertThat(providers).hasSize(1);
            assertThat(java.net.URLDecoder.decode(providers.get(0), StandardCharsets.UTF_8))
                    .as("registered on loopback only")
                    .startsWith("dubbo://127.0.0.1:" + hg.node.dubboPort() + "/");
        }
        try (HourglassDubboClient client = HourglassDubboClient.viaRegistry(hg.registry(), hg.appToken)) {
            JobView v = client.service().submit(job(60_000));
            assertThat(client.service().get(v.getId()).getState()).isEqualTo(JobState.DELAYED);
        }
        try (HourglassDubboClient wrongToken = HourglassDubboClient.viaRegistry(hg.registry(), "wrong")) {
            assertThat(error(() -> wrongToken.service().submit(job(60_000))).code())
                    .isEqualTo(ErrorCode.UNAUTHENTICATED);
        }
    }
}
