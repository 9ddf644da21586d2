package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.api.JobState;
import dev.hourglass.node.catalog.ServiceCatalog;
import dev.hourglass.node.catalog.ServiceDefinition;
import dev.hourglass.node.dispatch.Delivery;
import dev.hourglass.node.dispatch.DeliveryResult;
import dev.hourglass.node.dispatch.Dispatcher;
import dev.hourglass.node.job.AttemptOutcome;
import dev.hourglass.node.job.Job;
import dev.hourglass.node.shard.ShardOwnership;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's last check before an attempt leaves, with faults injected into a fake store: an
 * attempt that waited since its claim is not sent when another actor canceled it or took it over
 * meanwhile, nor when this node lost its shard (then it is given back unsent); a result the store
 * refuses is set aside without holding back the others; an attempt that never reached its receiver
 * does not use up the job's budget. A node out of touch with the cluster (its shard lease lapsed,
 * as it has on waking from a freeze) claims nothing and sends nothing it claimed.
 */
class FiringEngineFenceTest {
    static final long LEAD_MS = 500; // the window in which a test acts on a claimed, unsent attempt

    final FakeJobStore store = new FakeJobStore();
    final ShardOwnership shards = new ShardOwnership(List.of(0));
    /** The node's lease on its shards (in a cluster: recent contact with ZooKeeper). */
    final java.util.concurrent.atomic.AtomicBoolean lease = new java.util.concurrent.atomic.AtomicBoolean(true);

    {
        shards.leaseFrom(lease::get);
    }

    final List<Delivery> delivered = new CopyOnWriteArrayList<>();
    final AtomicInteger quarantined = new AtomicInteger();
    FiringEngine engine;

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.stop(1_000);
        }
    }

    private void start(ServiceDefinition service, Function<Delivery, CompletableFuture<DeliveryResult>> receiver) {
        start(service, receiver, new EngineSettings(60_000, 50, 100, 100, 10_000, 50, 2, 50, LEAD_MS));
    }

    private void start(
            ServiceDefinition service,
            Function<Delivery, CompletableFuture<DeliveryResult>> receiver,
            EngineSettings settings) {
        Dispatcher dispatcher = delivery -> {
            delivered.add(delivery);
            return receiver.apply(delivery);
        };
        FiringListener listener = new FiringListener() {
            @Override
            public void quarantined(AttemptResult result) {
                quarantined.incrementAndGet();
            }
        };
        engine = new FiringEngine(
                new FiringEngine.Ports(store, new ServiceCatalog(new FixedServices(service)), dispatcher, listener),
                shards,
                new ClusterContext("n1", () -> Set.of("n1", "n2"), limit -> limit), // n2: another live node
                Clock.systemUTC(),
                settings);
        engine.start();
    }

    private static ServiceDefinition service(int maxInFlight) {
        ServiceDefinition s = FiringEngineFaultsTest.SERVICE;
        return new ServiceDefinition(
                s.app(),
                s.name(),
                s.protocol(),
                s.topic(),
                s.url(),
                s.dubboGroup(),
                s.dubboVersion(),
                2,
                s.timeoutMs(),
                s.backoff(),
                s.ackMode(),
                maxInFlight,
                s.signingSecret(),
                s.alert(),
                0,
                0);
    }

    private static CompletableFuture<DeliveryResult> ok(Delivery d) {
        return CompletableFuture.completedFuture(DeliveryResult.success(null));
    }

    private JobState state(long id) {
        Job j = store.jobs.get(id);
        return j == null ? null : j.state();
    }

    /** Job 1 due at {@code fireAt} on shard 0, the engine started, and job 1 claimed ahead. */
    private void startWithJob1ClaimedAhead(long fireAt) {
        store.add(1, fireAt, 0);
        start(service(10), FiringEngineFenceTest::ok);
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> state(1) == JobState.RUNNING);
    }

    private void awaitPast(long time) {
        await().atMost(Duration.ofSeconds(10)).until(() -> System.currentTimeMillis() > time);
    }

    @Test
    void anAttemptClaimedAheadAndThenCanceledElsewhereIsNotSent() {
        long fireAt = System.currentTimeMillis() + 800;
        startWithJob1ClaimedAhead(fireAt);
        assertThat(System.currentTimeMillis())
                .as("claimed ahead, before its fire time")
                .isLessThan(fireAt);
        store.cancel(1); // through another node
        awaitPast(fireAt + 300);
        assertThat(delivered).isEmpty();
        assertThat(store.fenceChecks.get()).isPositive();
        assertThat(store.forgotten)
                .as("its log row, opened by the claim, is removed: it never left")
                .containsExactly(new AttemptStore.ClaimedAttempt(1, 1));
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void anAttemptWhoseShardMovedBeforeItsFireTimeIsGivenBackUnsent() {
        long fireAt = System.currentTimeMillis() + 800;
        startWithJob1ClaimedAhead(fireAt);
        shards.replace(List.of()); // the master gave shard 0 to another node
        await().atMost(Duration.ofSeconds(5)).until(() -> !store.givenBack.isEmpty());
        assertThat(System.currentTimeMillis())
                .as("given back at once, not at its fire time: the new owner is reading the shard now")
                .isLessThan(fireAt);
        awaitPast(fireAt + 300);
        assertThat(delivered).isEmpty();
        assertThat(store.givenBack).containsExactly(new AttemptStore.ClaimedAttempt(1, 1));
        Job back = store.jobs.get(1L);
        assertThat(back.state()).isEqualTo(JobState.DELAYED);
        assertThat(back.attempts()).as("the unsent attempt is taken back").isZero();
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void aNodeWhoseLeaseLapsedClaimsNothingUntilItHoldsItAgain() {
        lease.set(false);
        store.add(1, System.currentTimeMillis(), 0);
        start(service(10), FiringEngineFenceTest::ok);
        awaitPast(System.currentTimeMillis() + 500);
        assertThat(store.claims).as("not claimed without the lease").hasValue(0);
        assertThat(delivered).isEmpty();
        lease.set(true);
        await().atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == 1);
    }

    @Test
    void anAttemptClaimedAheadIsGivenBackUnsentWhenTheLeaseLapsesBeforeItsFireTime() {
        long fireAt = System.currentTimeMillis() + 800;
        startWithJob1ClaimedAhead(fireAt);
        lease.set(false); // frozen past its session: it still owns shard 0 as far as it knows
        awaitPast(fireAt + 300);
        assertThat(delivered).isEmpty();
        assertThat(store.givenBack).containsExactly(new AttemptStore.ClaimedAttempt(1, 1));
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void anAttemptTheDatabaseCheckFindsCurrentIsGivenBackIfTheLeaseLapsedDuringTheCheck() {
        long fireAt = System.currentTimeMillis() + 800;
        store.add(1, fireAt, 0);
        store.duringFenceCheck = () -> lease.set(false);
        start(service(10), FiringEngineFenceTest::ok);
        await().atMost(Duration.ofSeconds(5)).until(() -> !store.givenBack.isEmpty());
        awaitPast(fireAt + 300);
        assertThat(store.fenceChecks.get()).as("it reached the database check").isPositive();
        assertThat(delivered).isEmpty();
        assertThat(store.givenBack).containsExactly(new AttemptStore.ClaimedAttempt(1, 1));
    }

    @Test
    void anOverdueAttemptIsNotSentStraightFromAClaimDuringWhichTheLeaseLapsed() {
        // the straight path skips the database fence (the claim was the check): a freeze inside the
        // claim is caught by the lease, which the frozen time has run out
        store.duringClaim = () -> lease.set(false);
        store.add(1, System.currentTimeMillis() - 10, 0);
        start(service(10), FiringEngineFenceTest::ok);
        await().atMost(Duration.ofSeconds(5)).until(() -> !store.givenBack.isEmpty());
        awaitPast(System.currentTimeMillis() + 300);
        assertThat(delivered).isEmpty();
        assertThat(store.givenBack).containsExactly(new AttemptStore.ClaimedAttempt(1, 1));
        assertThat(state(1)).isEqualTo(JobState.DELAYED);
    }

    @Test
    void aGainedShardIsReadAgainSoonForWhatItsPreviousOwnerGivesBackJustAfterTheFirstRead() {
        long fireAt = System.currentTimeMillis() + 1_500;
        // claimed ahead by n2, the shard's owner until now
        store.jobs.put(1L, FakeJobStore.job(1, JobState.RUNNING, fireAt, fireAt, 1, 5, "n2", 5_000, 0));
        shards.replace(List.of());
        // loader and catch-up far apart: only the hand-off re-reads can find the job in time
        start(
                service(10),
                FiringEngineFenceTest::ok,
                new EngineSettings(60_000, 5_000, 30_000, 30_000, 10_000, 50, 2, 50, LEAD_MS));
        shards.replace(List.of(0)); // this node gains shard 0 and reads it: the job is RUNNING, not loaded
        await().atMost(Duration.ofSeconds(1)).until(() -> store.reads.containsKey(0));
        store.add(1, fireAt, 0); // n2 heard of the same assignment a moment later and gave the attempt back
        await().atMost(Duration.ofSeconds(5)).until(() -> !delivered.isEmpty());
        assertThat(System.currentTimeMillis() - fireAt)
                .as("delivered at its fire time, not at the next catch-up sweep 30 s later")
                .isLessThan(500);
        assertThat(delivered).extracting(d -> d.job().id()).containsExactly(1L);
    }

    @Test
    void anAttemptWaitingAtItsGateIsNotSentOnceAnotherNodeTookItOver() {
        Map<Long, CompletableFuture<DeliveryResult>> held = new ConcurrentHashMap<>();
        long now = System.currentTimeMillis();
        store.add(1, now, 0);
        store.add(2, now, 0);
        start(service(1), d -> held.computeIfAbsent(d.job().id(), id -> new CompletableFuture<>()));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> delivered.size() == 1 && state(1) == JobState.RUNNING && state(2) == JobState.RUNNING);
        long waiting = delivered.get(0).job().id() == 1 ? 2 : 1;
        Job mine = store.jobs.get(waiting);
        // another node timed it out and claimed the next attempt
        store.jobs.put(
                waiting,
                FakeJobStore.job(waiting, JobState.RUNNING, mine.fireAt(), mine.dueAt(), 2, 5, "n2", 5_000, 0));
        held.get(delivered.get(0).job().id()).complete(DeliveryResult.success(null));
        awaitPast(System.currentTimeMillis() + 500);
        assertThat(delivered).extracting(d -> d.job().id()).containsExactly(3 - waiting);
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void attemptsQueuedAtAFullGateAreGivenBackAtOnceWhenTheirShardMoves() {
        // behind a delivery to a slow receiver they would wait for its answer, or for their deadline,
        // at which the new owner would end them as TIMEOUTs that never reached the receiver
        Map<Long, CompletableFuture<DeliveryResult>> held = new ConcurrentHashMap<>();
        long now = System.currentTimeMillis();
        store.add(1, now, 0);
        store.add(2, now, 0); // maxInFlight 1: claimed with job 1 (twice the limit), queued at the gate
        start(service(1), d -> held.computeIfAbsent(d.job().id(), id -> new CompletableFuture<>()));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> delivered.size() == 1 && state(1) == JobState.RUNNING && state(2) == JobState.RUNNING);
        long sending = delivered.get(0).job().id();

        shards.replace(List.of()); // the master gave shard 0 to another node

        await().atMost(Duration.ofSeconds(2)).until(() -> store.givenBack.size() == 1);
        assertThat(held.get(sending)).as("the delivery under way is still open").isNotDone();
        for (AttemptStore.ClaimedAttempt back : store.givenBack) {
            assertThat(back.jobId()).isNotEqualTo(sending);
            assertThat(state(back.jobId())).isEqualTo(JobState.DELAYED);
            assertThat(store.jobs.get(back.jobId()).attempts()).isZero();
        }
        assertThat(engine.inFlight()).as("only the delivery under way").isEqualTo(1);
        held.get(sending).complete(DeliveryResult.success(null));
        await().atMost(Duration.ofSeconds(5)).until(() -> state(sending) == JobState.FINISHED);
        assertThat(delivered).hasSize(1);
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void anAttemptThatWaitedAtItsGateUntilItsDeadlineNearedIsRenewedAndSentInItsTurn() {
        // timeout 1 s (margin 500 ms); the receiver holds job 1 for 700 ms while job 2 waits at
        // the gate (maxInFlight 1). Given back, job 2 would be claimed again at the end of the line
        long now = System.currentTimeMillis();
        store.jobs.put(1L, FakeJobStore.job(1, JobState.DELAYED, now, now, 0, 5, null, 1_000, 0));
        store.jobs.put(2L, FakeJobStore.job(2, JobState.DELAYED, now + 1, now + 1, 0, 5, null, 1_000, 0));
        start(
                service(1),
                d -> d.job().id() == 1
                        ? CompletableFuture.supplyAsync(
                                () -> DeliveryResult.success(null),
                                CompletableFuture.delayedExecutor(700, java.util.concurrent.TimeUnit.MILLISECONDS))
                        : ok(d));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> state(1) == JobState.FINISHED && state(2) == JobState.FINISHED);
        assertThat(store.renewals).containsExactly(new AttemptStore.ClaimedAttempt(2, 1));
        assertThat(store.givenBack).as("kept its place in line").isEmpty();
        assertThat(delivered).extracting(d -> d.job().id()).containsExactly(1L, 2L);
        Delivery second = delivered.get(1);
        assertThat(store.results.stream()
                        .filter(r -> r.jobId() == 2)
                        .findFirst()
                        .orElseThrow()
                        .attempt())
                .isEqualTo(1);
        assertThat(second.firedAt()).isGreaterThanOrEqualTo(delivered.get(0).firedAt() + 600);
    }

    @Test
    void anAttemptWhoseDeadlineCameNearDuringTheDatabaseCheckIsGivenBackUnsent() {
        // timeout 1 s: the margin is half of it. Claimed ahead, so it passes the database check
        // at its fire time; that check takes 600 ms (a rebalance's contention), leaving 400 ms of
        // its deadline, and a node taking the shard over would time it out while its receiver works
        long fireAt = System.currentTimeMillis() + 800;
        store.jobs.put(1L, FakeJobStore.job(1, JobState.DELAYED, fireAt, fireAt, 0, 5, null, 1_000, 0));
        store.duringFenceCheck = () -> sleep(600);
        start(service(10), FiringEngineFenceTest::ok);
        await().atMost(Duration.ofSeconds(5)).until(() -> !store.givenBack.isEmpty());
        assertThat(store.fenceChecks.get()).as("it reached the database check").isPositive();
        assertThat(store.givenBack).first().isEqualTo(new AttemptStore.ClaimedAttempt(1, 1));
        // given back, it is claimed again (the same attempt number: the unsent one was taken back)
        // with a deadline of its own; no send ever leaves with less than the margin left
        assertThat(delivered)
                .as("sent with at least half its timeout left")
                .allSatisfy(d -> assertThat(d.job().dueAt() - d.firedAt()).isGreaterThanOrEqualTo(500));
    }

    @Test
    void aDeliveryStillUnansweredWhenAStopsGraceEndsIsWrittenAsATimeoutThatSaysSo() {
        store.add(1, System.currentTimeMillis(), 0);
        start(service(10), d -> new CompletableFuture<>()); // a receiver slower than the grace
        await().atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == 1);

        FiringEngine stopping = engine;
        engine = null;
        long started = System.nanoTime();
        stopping.stop(300);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        assertThat(store.results).hasSize(1);
        AttemptResult written = store.results.get(0);
        assertThat(written.outcome()).isEqualTo(AttemptOutcome.TIMEOUT);
        assertThat(written.message()).contains("no answer before node n1 stopped", "may still complete it");
        assertThat(state(1)).as("retried by whoever owns it next").isEqualTo(JobState.DELAYED);
        assertThat(store.jobs.get(1L).attempts()).isEqualTo(1);
    }

    @Test
    void whileWritesAreRefusedTheTimeoutSweepQueuesOneResultPerAttemptAndEachIsWrittenOnceTheyAreBack() {
        // a read-only database (a switchover, a full disk): reads work, writes fail. 500 attempts of
        // another live node are past their deadline; the sweep (every 100 ms) finds them each time
        long past = System.currentTimeMillis() - 10_000;
        for (long id = 1; id <= 500; id++) {
            store.jobs.put(id, FakeJobStore.job(id, JobState.RUNNING, past, past + 5_000, 1, 5, "n2", 5_000, 0));
        }
        store.refuseWrites = true;
        start(service(10), FiringEngineFenceTest::ok);
        int mostQueued = 0;
        long until = System.currentTimeMillis() + 3_000; // some 30 sweeps
        while (System.currentTimeMillis() < until) {
            mostQueued = Math.max(mostQueued, engine.pendingResults());
            sleep(20);
        }
        assertThat(store.results).as("nothing written while writes are refused").isEmpty();
        assertThat(mostQueued).as("queued at most one result per attempt").isBetween(1, 500);

        store.refuseWrites = false;
        // each timed-out attempt is retried (attempt 2, delivered at once): wait for those to end
        await().atMost(Duration.ofSeconds(15))
                .until(() -> store.jobs.values().stream().allMatch(j -> j.state() == JobState.FINISHED));
        List<AttemptResult> timeouts = store.results.stream()
                .filter(r -> r.outcome() == AttemptOutcome.TIMEOUT)
                .toList();
        assertThat(timeouts)
                .as("one TIMEOUT per stale attempt, none dropped, none twice")
                .hasSize(500)
                .allSatisfy(r -> assertThat(r.attempt()).isEqualTo(1));
        assertThat(timeouts.stream().map(AttemptResult::jobId).distinct()).hasSize(500);
        assertThat(engine.pendingResults()).isZero();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aResultTheStoreRefusesIsSetAsideAndTheOthersAreWritten() {
        long now = System.currentTimeMillis();
        for (long id = 1; id <= 20; id++) {
            store.add(id, now, 0);
        }
        store.poison.add(7L);
        start(service(100), FiringEngineFenceTest::ok);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> state(7) == JobState.FAILED
                        && store.jobs.keySet().stream()
                                .filter(id -> id != 7)
                                .allMatch(id -> state(id) == JobState.FINISHED));
        assertThat(store.quarantined).extracting(AttemptResult::jobId).containsExactly(7L);
        assertThat(quarantined.get()).isEqualTo(1);
        assertThat(delivered).hasSize(20);
    }

    @Test
    void attemptsThatNeverReachedTheReceiverDoNotUseUpTheBudget() {
        AtomicInteger refusals = new AtomicInteger(3);
        store.add(1, System.currentTimeMillis(), 0);
        start(
                service(10),
                d -> CompletableFuture.completedFuture(
                        refusals.getAndDecrement() > 0
                                ? DeliveryResult.notDelivered("connection refused")
                                : DeliveryResult.success(null)));
        await().atMost(Duration.ofSeconds(10)).until(() -> state(1) == JobState.FINISHED);
        Job done = store.jobs.get(1L);
        assertThat(done.attempts()).isEqualTo(4);
        assertThat(done.maxAttempts())
                .as("three uncounted attempts extended the budget of 5")
                .isEqualTo(8);
        assertThat(store.results)
                .extracting(AttemptResult::outcome)
                .containsExactly(
                        AttemptOutcome.ERROR, AttemptOutcome.ERROR, AttemptOutcome.ERROR, AttemptOutcome.SUCCESS);
    }
}
