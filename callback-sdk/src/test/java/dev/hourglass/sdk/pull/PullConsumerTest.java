package dev.hourglass.sdk.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.api.JobState;
import dev.hourglass.api.Reservation;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.pull.FakeHourglass.ResultItem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link PullConsumer} against a real HTTP peer: {@link FakeHourglass} on 127.0.0.1. */
class PullConsumerTest {
    private static final String SERVICE = "order-close";
    private static final Duration WAIT = Duration.ofSeconds(5);

    private FakeHourglass hourglass;
    private HourglassClient client;
    private final List<PullConsumer> consumers = new ArrayList<>();

    @BeforeEach
    void startNode() throws Exception {
        hourglass = FakeHourglass.start();
        client = HourglassClient.create(hourglass.baseUrl(), FakeHourglass.TOKEN);
    }

    @AfterEach
    void stopAll() throws Exception {
        for (PullConsumer consumer : consumers) {
            consumer.stop(WAIT);
        }
        hourglass.close();
    }

    private PullConsumer.Builder consumer(PullHandler handler) {
        return PullConsumer.builder(client)
                .services(SERVICE)
                .handler(handler)
                .threads(2)
                .batchSize(10)
                .longPollWait(Duration.ofMillis(300))
                .ttr(Duration.ofSeconds(5));
    }

    private PullConsumer start(PullConsumer.Builder builder) {
        PullConsumer consumer = builder.build();
        consumers.add(consumer);
        consumer.start();
        return consumer;
    }

    private boolean allIn(List<String> jobIds, JobState state) {
        return jobIds.stream().allMatch(id -> hourglass.state(id) == state);
    }

    @Test
    void reservesRunsAndAcknowledgesEachJob() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(hourglass.addJob(SERVICE, "{\"orderId\":" + i + "}"));
        }
        Queue<Reservation> handled = new ConcurrentLinkedQueue<>();
        Queue<String> threads = new ConcurrentLinkedQueue<>();
        PullConsumer consumer = start(consumer(job -> {
            handled.add(job);
            Thread current = Thread.currentThread();
            threads.add(current.getName() + (current.isDaemon() ? " (daemon)" : ""));
            return PullResult.success();
        }));

        Await.until("3 SUCCESS results accepted", () -> consumer.getSucceeded() == 3);

        assertThat(handled).extracting(Reservation::getId).containsExactlyInAnyOrderElementsOf(ids);
        for (Reservation job : handled) {
            assertThat(job.getAttempt()).isEqualTo(1);
            assertThat(job.getService()).isEqualTo(SERVICE);
            assertThat(job.getState()).isEqualTo(JobState.RUNNING);
            assertThat(job.getDeadline()).isAfter(job.getCreatedAt());
            assertThat(job.getPayload()).isEqualTo("{\"orderId\":" + ids.indexOf(job.getId()) + "}");
        }
        for (String id : ids) {
            assertThat(hourglass.results(id))
                    .singleElement()
                    .satisfies(r -> assertThat(r.status()).isEqualTo("SUCCESS"))
                    .satisfies(r -> assertThat(r.attempt()).isEqualTo(1))
                    .satisfies(r -> assertThat(r.accepted()).isTrue());
        }
        assertThat(hourglass.reserveBodies()).allSatisfy(body -> {
            assertThat(body.path("services").toString()).isEqualTo("[\"order-close\"]");
            assertThat(body.path("ttrMs").asLong()).isEqualTo(5_000);
            assertThat(body.path("waitMs").asLong()).isEqualTo(300);
        });
        assertThat(threads)
                .allSatisfy(name -> assertThat(name).matches("hourglass-pull-order-close-worker-\\d+ \\(daemon\\)"));
        assertThat(consumer.getReserved()).isEqualTo(3);
        assertThat(consumer.getSucceeded()).isEqualTo(3);
        assertThat(consumer.getLostReservations()).isZero();
        assertThat(consumer.getResultsGivenUp()).isZero();
    }

    @Test
    void reservesOnlyWhatItsIdleWorkersCanStart() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(hourglass.addJob(SERVICE, "{}"));
        }
        Semaphore proceed = new Semaphore(0);
        AtomicInteger started = new AtomicInteger();
        start(consumer(job -> {
            started.incrementAndGet();
            proceed.tryAcquire(5, TimeUnit.SECONDS);
            return PullResult.success();
        })); // 2 workers, batch 10

        Await.until("both workers busy", () -> started.get() == 2);
        assertThat(hourglass.readyCount()).as("jobs left to the node").isEqualTo(3);
        assertThat(hourglass.reserveBodies())
                .singleElement()
                .satisfies(body -> assertThat(body.path("max").asInt()).isEqualTo(2));
        // one worker at a time gets free: each time one more job is reserved, never a batch ahead
        for (int running = 3; running <= 5; running++) {
            proceed.release();
            int expected = running;
            Await.until(expected + " handlers started", () -> started.get() == expected);
            assertThat(hourglass.readyCount()).as("jobs left to the node").isEqualTo(5 - running);
        }
        proceed.release(5);
        Await.until("all 5 jobs FINISHED", () -> allIn(ids, JobState.FINISHED));
        assertThat(hourglass.reserveBodies())
                .extracting(body -> body.path("max").asInt())
                .startsWith(2, 1, 1, 1)
                .allSatisfy(max -> assertThat(max).isBetween(1, 2));
    }

    @Test
    void sendsResultsThatEndTogetherInOneRequest() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(hourglass.addJob(SERVICE, "{}"));
        }
        CountDownLatch allRunning = new CountDownLatch(10);
        PullConsumer consumer = start(consumer(job -> {
                    allRunning.countDown();
                    allRunning.await(5, TimeUnit.SECONDS); // all ten end at the same moment
                    return PullResult.success();
                })
                .threads(10)
                .resultLinger(Duration.ofMillis(50)));

        Await.until("10 SUCCESS results accepted", () -> consumer.getSucceeded() == 10);
        assertThat(allIn(ids, JobState.FINISHED)).isTrue();

        List<List<ResultItem>> posts = hourglass.resultPosts();
        assertThat(posts.stream().mapToInt(List::size).sum()).isEqualTo(10);
        assertThat(posts).as("requests for 10 results").hasSizeLessThanOrEqualTo(3);
        assertThat(posts.stream().mapToInt(List::size).max().orElse(0)).isGreaterThanOrEqualTo(4);
        assertThat(consumer.getSucceeded()).isEqualTo(10);
    }

    @Test
    void touchesAHandlerSlowerThanHalfItsTtrSoItsResultIsAccepted() {
        String id = hourglass.addJob(SERVICE, "{}");
        // 1.25 s, not 1.5: a third touch, due at 1.5 s, would race the result and may rightly be
        // refused when it comes second (failed so under load, 2026-11-29)
        PullConsumer consumer = start(consumer(job -> {
                    Thread.sleep(1_250);
                    return PullResult.success();
                })
                .threads(1)
                .ttr(Duration.ofSeconds(1)));

        Await.until("the SUCCESS result accepted", () -> consumer.getSucceeded() == 1);

        assertThat(hourglass.state(id)).isEqualTo(JobState.FINISHED);
        // at ~0.5 s and ~1.0 s; without them the reservation would have timed out at 1 s
        assertThat(hourglass.touches(id)).hasSizeBetween(1, 3).allSatisfy(touch -> {
            assertThat(touch.attempt()).isEqualTo(1);
            assertThat(touch.ttrMs()).isEqualTo(1_000);
            assertThat(touch.accepted()).isTrue();
        });
        assertThat(hourglass.results(id)).singleElement().satisfies(r -> assertThat(r.accepted())
                .isTrue());
        assertThat(consumer.getSucceeded()).isEqualTo(1);
        assertThat(consumer.getLostReservations()).isZero();
    }

    @Test
    void countsALostReservationOnceThoughBothTouchAndResultAreRefused() throws Exception {
        String id = hourglass.addJob(SERVICE, "{}");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        PullConsumer consumer = start(consumer(job -> {
                    started.countDown();
                    proceed.await(5, TimeUnit.SECONDS);
                    return PullResult.success();
                })
                .threads(1)
                .ttr(Duration.ofSeconds(1)));
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

        hourglass.expire(id); // the node times attempt 1 out under the running handler
        Await.until("the touch at half TTR refused", () -> consumer.getLostReservations() == 1);
        proceed.countDown();

        // attempt 1's result is refused; the job, ready again, is reserved and run as attempt 2
        Await.until("attempt 2's SUCCESS accepted", () -> consumer.getSucceeded() == 1);
        assertThat(hourglass.state(id)).isEqualTo(JobState.FINISHED);
        assertThat(hourglass.attempt(id)).isEqualTo(2);
        assertThat(hourglass.results(id))
                .extracting(ResultItem::attempt, ResultItem::accepted)
                .containsExactly(tuple(1, false), tuple(2, true));
        assertThat(consumer.getLostReservations()).isEqualTo(1);
        assertThat(consumer.getSucceeded()).isEqualTo(1);
        assertThat(consumer.getResultsGivenUp()).isZero();
    }

    @Test
    void answersRetryForAThrowingHandlerAndSendsWhatTheHandlerSaid() {
        String throwing = hourglass.addJob(SERVICE, "{\"do\":\"throw\"}");
        String later = hourglass.addJob(SERVICE, "{\"do\":\"later\"}");
        String failing = hourglass.addJob(SERVICE, "{\"do\":\"fail\"}");
        PullConsumer consumer = start(consumer(job -> switch (job.getPayload()) {
            case "{\"do\":\"throw\"}" -> throw new IllegalStateException("boom");
            case "{\"do\":\"later\"}" -> PullResult.retryAfter(5_000, "busy");
            default -> PullResult.fail("bad order");
        }));

        Await.until("3 results accepted", () -> consumer.getRetried() + consumer.getFailed() == 3);

        JsonNode thrown = hourglass.results(throwing).get(0).sent();
        assertThat(thrown.path("status").asText()).isEqualTo("RETRY");
        assertThat(thrown.path("message").asText()).isEqualTo("java.lang.IllegalStateException: boom");
        assertThat(thrown.has("retryAfterMs")).isFalse();
        JsonNode retry = hourglass.results(later).get(0).sent();
        assertThat(retry.path("status").asText()).isEqualTo("RETRY");
        assertThat(retry.path("retryAfterMs").asLong()).isEqualTo(5_000);
        assertThat(retry.path("message").asText()).isEqualTo("busy");
        JsonNode fail = hourglass.results(failing).get(0).sent();
        assertThat(fail.path("status").asText()).isEqualTo("FAIL");
        assertThat(fail.path("message").asText()).isEqualTo("bad order");
        assertThat(hourglass.state(throwing)).isEqualTo(JobState.DELAYED);
        assertThat(hourglass.state(failing)).isEqualTo(JobState.FAILED);
        assertThat(consumer.getRetried()).isEqualTo(2);
        assertThat(consumer.getFailed()).isEqualTo(1);
    }

    @Test
    void stopReleasesWhatNoHandlerStartedAndWaitsForTheRunningOnes() throws Exception {
        String running = hourglass.addJob(SERVICE, "{\"n\":1}");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        Set<String> handled = ConcurrentHashMap.newKeySet();
        PullConsumer consumer = start(consumer(job -> {
                    handled.add(job.getId());
                    started.countDown();
                    proceed.await(5, TimeUnit.SECONDS);
                    return PullResult.success();
                })
                .longPollWait(Duration.ofSeconds(5)));
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        Await.until("the other worker's long poll waiting", () -> hourglass.waitingPolls() == 1);

        CompletableFuture<Boolean> stopped = new CompletableFuture<>();
        Thread stopper = new Thread(() -> stopped.complete(consumer.stop(WAIT)), "test-stopper");
        stopper.start();
        Await.until("the consumer stopping", () -> consumer.getState() == PullConsumer.State.STOPPING);
        // a job that comes now reaches the stopping consumer through its long poll: no handler starts it
        String unstarted = hourglass.addJob(SERVICE, "{\"n\":2}");
        Await.until(
                "the unstarted job released",
                () -> !hourglass.results(unstarted).isEmpty());

        assertThatThrownBy(() -> stopped.get(200, TimeUnit.MILLISECONDS))
                .as("stop waits for the running handler")
                .isInstanceOf(TimeoutException.class);
        ResultItem release = hourglass.results(unstarted).get(0);
        assertThat(release.status()).isEqualTo("RELEASE");
        assertThat(release.sent().has("delayMs")).as("released without delay").isFalse();
        assertThat(release.accepted()).isTrue();

        proceed.countDown();
        assertThat(stopped.get(5, TimeUnit.SECONDS)).isTrue();
        stopper.join(1_000);

        assertThat(hourglass.state(running))
                .as("its result sent before stop returned")
                .isEqualTo(JobState.FINISHED);
        assertThat(handled).containsExactly(running);
        assertThat(consumer.getState()).isEqualTo(PullConsumer.State.CLOSED);
        assertThat(consumer.getReleased()).isEqualTo(1);
        assertThat(consumer.getSucceeded()).isEqualTo(1);
        Await.until("no consumer thread left", () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("hourglass-pull-")));
    }

    @Test
    void sendsResultsAgainWhenTheNodeAnswers503() {
        hourglass.failNextResults(1);
        String id = hourglass.addJob(SERVICE, "{}");
        PullConsumer consumer = start(consumer(job -> PullResult.success()));

        Await.until("the SUCCESS result accepted", () -> consumer.getSucceeded() == 1);

        assertThat(hourglass.state(id)).isEqualTo(JobState.FINISHED);
        assertThat(hourglass.results(id))
                .extracting(ResultItem::status, ResultItem::accepted)
                .containsExactly(tuple("SUCCESS", false), tuple("SUCCESS", true));
        assertThat(consumer.getSucceeded()).isEqualTo(1);
        assertThat(consumer.getResultsGivenUp()).isZero();
    }

    @Test
    void startsOnceOnly() {
        PullConsumer consumer = start(consumer(job -> PullResult.success()));

        assertThatThrownBy(consumer::start).isInstanceOf(IllegalStateException.class);
        assertThat(consumer.stop(WAIT)).isTrue();
        assertThatThrownBy(consumer::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void refusesSettingsOutOfBoundsNamingThem() {
        assertThatThrownBy(() ->
                        consumer(job -> PullResult.success()).batchSize(101).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("batchSize");
        assertThatThrownBy(() -> consumer(job -> PullResult.success())
                        .ttr(Duration.ofMillis(999))
                        .build())
                .hasMessageContaining("ttr");
        assertThatThrownBy(() -> consumer(job -> PullResult.success())
                        .longPollWait(Duration.ofSeconds(31))
                        .build())
                .hasMessageContaining("longPollWait");
        assertThatThrownBy(() -> consumer(null).build()).hasMessageContaining("handler");
        assertThatThrownBy(() -> consumer(job -> PullResult.success())
                        .services(List.of())
                        .build())
                .hasMessageContaining("services");
    }
}
