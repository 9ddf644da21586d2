package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.catalog.ServiceCatalog;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.port.Dispatcher;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.port.ServiceRepository;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.shard.ShardOwnership;
import dev.hourglass.node.testing.ManualClock;
import dev.hourglass.node.testing.ManualScheduler;
import dev.hourglass.node.testing.ServicesWithoutFlowControl;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine while its service cannot be read (the database down on a catalog cache miss): the
 * claim bound falls back to its default, a claimed attempt that cannot be sent ends as an ERROR and
 * is retried, and nothing is left holding a claim slot or an in-flight mark (either would stop
 * firing or hide the job from the timeout sweep for good).
 *
 * <p>On fake time: the engine runs on one {@link ManualScheduler} (every role, on the test's
 * thread) whose clock is the engine's clock; the test moves it. A dispatcher that never answers is a
 * future nobody completes until the test does.
 */
class FiringEngineFaultsTest {
    static final ServiceDefinition SERVICE = new ServiceDefinition(
            "app",
            "svc",
            Protocol.HTTP,
            null,
            "http://127.0.0.1/cb",
            null,
            null,
            5,
            5_000,
            new Backoff(50, 1.0, 50),
            AckMode.AUTO,
            10,
            "s".repeat(32),
            null,
            0,
            0);

    final ManualTime time = new ManualTime();
    final ManualClock clock = time.clock;
    final ManualScheduler scheduler = time.scheduler;
    final LoggedDefects defects = time.defects;
    FiringEngine engine;

    @AfterEach
    void stop() {
        time.stopAndCheck(engine);
    }

    /** The engine on the manual scheduler and clock, one claim at a time, claiming at the fire time. */
    private FiringEngine start(FakeJobStore store, ServiceLookup catalog, Dispatcher dispatcher) {
        return start(store, catalog, new ShardOwnership(List.of(0)), 100, dispatcher);
    }

    private FiringEngine start(
            FakeJobStore store,
            ServiceLookup catalog,
            ShardOwnership shards,
            long catchUpIntervalMs,
            Dispatcher dispatcher) {
        engine = new FiringEngine(
                new FiringEngine.Ports(store, catalog, dispatcher, FiringListener.NONE),
                shards,
                ClusterContext.alone("n1"),
                clock,
                new EngineSettings(60_000, 50, catchUpIntervalMs, 100, 1_000, 10, 1, 10, 0, 0),
                EngineSchedulers.allOn(scheduler));
        engine.start();
        return engine;
    }

    private void runUntil(String what, BooleanSupplier done, long maxMs) {
        time.runUntil(what, done, maxMs);
    }

    /**
     * A claim round that dies of an Error (a defect, not a database outage) still plans the next
     * round. The Error comes before the round takes anything from memory, so the job stays there:
     * without the next round planned by the failed one, nothing would claim it until an earlier job
     * arrived or the next catch-up sweep offered it again (up to {@code catchUpIntervalMs} late).
     */
    @Test
    void aClaimRoundThatDiesOfAnErrorStillPlansTheNextOne() {
        AtomicInteger defectsLeft = new AtomicInteger(1);
        ShardOwnership shards = new ShardOwnership(List.of(0));
        shards.leaseFrom(() -> {
            boolean inRound = StackWalker.getInstance()
                    .walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("claimRound")));
            if (inRound && defectsLeft.getAndDecrement() > 0) {
                throw new AssertionError("a defect met in the claim round");
            }
            return true;
        });
        FakeJobStore store = new FakeJobStore();
        store.add(1, clock.millis() + 200, 0);
        // a catch-up sweep re-offers what is due, which plans a round too: none comes in this test
        start(
                store,
                new ServiceCatalog(new FixedServices(SERVICE)),
                shards,
                60_000,
                delivery -> CompletableFuture.completedFuture(DeliveryResult.success(null)));
        AssertionError thrown = null;
        try {
            scheduler.advance(1_000); // the scheduler's thread meets the Error, as a pool thread would
        } catch (AssertionError e) {
            thrown = e;
        }
        assertThat(thrown).as("a round met the defect").hasMessageContaining("claim round");
        assertThat(defects.logged()).anyMatch(line -> line.contains("claim round error"));
        defects.logged().clear();
        runUntil(
                "the job finished after the failed round",
                () -> store.jobs.get(1L).state() == JobState.FINISHED,
                5_000);
    }

    @Test
    void anAttemptWhoseServiceCannotBeReadEndsAsAnErrorAndIsRetried() {
        // the first read is the claim bound's (the claim round), the second the send's (the claim task)
        AtomicInteger failuresLeft = new AtomicInteger(2);
        ServiceRepository services = new ServicesWithoutFlowControl() {
            @Override
            public ServiceDefinition put(ServiceDefinition service) {
                return service;
            }

            @Override
            public Optional<ServiceDefinition> find(String app, String name) {
                if (failuresLeft.getAndDecrement() > 0) {
                    throw new IllegalStateException("database down");
                }
                return Optional.of(SERVICE);
            }

            @Override
            public List<ServiceDefinition> list(String app) {
                return List.of(); // the periodic refresh finds nothing: lookups miss the cache
            }

            @Override
            public boolean deleteIfIdle(String app, String name) {
                return false;
            }
        };
        List<Long> delivered = new CopyOnWriteArrayList<>();
        // the warning says which attempt in its MDC too (docs/operations.md, "Logs")
        List<java.util.Map<String, String>> warnedWith = new CopyOnWriteArrayList<>();
        ch.qos.logback.classic.Logger senderLog =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(AttemptSender.class);
        ch.qos.logback.core.AppenderBase<ch.qos.logback.classic.spi.ILoggingEvent> mdcs =
                new ch.qos.logback.core.AppenderBase<>() {
                    @Override
                    protected void append(ch.qos.logback.classic.spi.ILoggingEvent event) {
                        if (event.getFormattedMessage().contains("its service could not be read")) {
                            warnedWith.add(event.getMDCPropertyMap());
                        }
                    }
                };
        mdcs.start();
        senderLog.addAppender(mdcs);
        FakeJobStore store = new FakeJobStore();
        long now = clock.millis();
        store.add(1, now + 200, 0);
        start(store, new ServiceCatalog(services), delivery -> {
            delivered.add(delivery.job().id());
            return CompletableFuture.completedFuture(DeliveryResult.success(null));
        });
        runUntil(
                "every job finished",
                () -> store.jobs.values().stream().allMatch(j -> j.state() == JobState.FINISHED),
                10_000);
        assertThat(failuresLeft.get()).as("both reads failed once").isNegative();
        assertThat(delivered).containsExactly(1L);
        assertThat(store.results)
                .extracting(AttemptResult::outcome)
                .containsExactly(AttemptOutcome.ERROR, AttemptOutcome.SUCCESS);
        assertThat(store.results.get(0).message()).contains("database down");
        assertThat(store.results.get(1).attempt()).isEqualTo(2);
        assertThat(engine.inFlight()).as("nothing left marked in flight").isZero();
        senderLog.detachAppender(mdcs);
        assertThat(warnedWith).hasSize(1);
        assertThat(warnedWith.get(0))
                .containsEntry("jobId", "1")
                .containsEntry("app", "app")
                .containsEntry("service", "svc")
                .containsEntry("attempt", "1");
        assertThat(org.slf4j.MDC.get("jobId")).as("removed after the line").isNull();
    }

    /**
     * A dispatcher that never answers (a defect of a client library, say) must not hold its job
     * for ever: an attempt in flight is left to its sender by the timeout sweep, so the sender
     * itself gives up on it after the timeout and a grace, and the job is retried.
     */
    @Test
    void aSendWhoseDispatcherNeverAnswersEndsAsATimeoutAndTheJobIsRetried() {
        FakeJobStore store = new FakeJobStore();
        long now = clock.millis();
        store.jobs.put(1L, FakeJobStore.job(1, JobState.DELAYED, now, now, 0, 5, null, 200, 0));
        List<CompletableFuture<DeliveryResult>> unanswered = new CopyOnWriteArrayList<>();
        start(store, new ServiceCatalog(new FixedServices(SERVICE)), delivery -> {
            if (delivery.attempt() == 1) {
                CompletableFuture<DeliveryResult> never = new CompletableFuture<>(); // until the test says
                unanswered.add(never);
                return never;
            }
            return CompletableFuture.completedFuture(DeliveryResult.success(null));
        });
        runUntil("finished", () -> store.jobs.get(1L).state() == JobState.FINISHED, 15_000);
        long endedAfter = clock.millis() - now;
        assertThat(unanswered).hasSize(1);
        assertThat(store.results)
                .extracting(AttemptResult::outcome)
                .containsExactly(AttemptOutcome.TIMEOUT, AttemptOutcome.SUCCESS);
        assertThat(store.results.get(0).message())
                .as("ended by the sender, not by the sweep (which leaves an attempt in flight alone)")
                .contains("no answer from the HTTP dispatcher");
        assertThat(endedAfter)
                .as("not before the timeout (200 ms) and the grace")
                .isGreaterThanOrEqualTo(200 + AttemptSender.GIVE_UP_GRACE_MS);
        assertThat(engine.inFlight()).isZero();

        unanswered.get(0).complete(DeliveryResult.success(null)); // the late answer changes nothing
        scheduler.advance(1_000);
        assertThat(store.results).hasSize(2);
        assertThat(engine.inFlight()).isZero();
    }
}
