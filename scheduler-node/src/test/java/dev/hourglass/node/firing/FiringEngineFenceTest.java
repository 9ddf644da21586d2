package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.catalog.ServiceCatalog;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.Delivery;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.port.Dispatcher;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.shard.ShardOwnership;
import dev.hourglass.node.testing.ManualClock;
import dev.hourglass.node.testing.ManualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What stops an attempt between its claim and its send, with faults injected into a fake store: it
 * is sent from memory, with no store call on the way; it is not sent once withheld for a cancel
 * (waiting for its fire time, at its gate, or still on its way from the claim), nor when this node
 * lost its shard (then it is given back unsent); a result the store
 * refuses is set aside without holding back the others; an attempt that never reached its receiver
 * does not use up the job's budget. A node out of touch with the cluster (its shard lease lapsed,
 * as it has on waking from a freeze) claims nothing and sends nothing it claimed.
 *
 * <p>On fake time: every role of the engine runs on one {@link ManualScheduler}, on the test's
 * thread, and its clock is the engine's clock. Time moves only when the test moves it ({@link
 * #runUntil}, {@link ManualScheduler#advance}); a receiver that answers later is a future the test
 * (or a task it plans at a chosen fake time) completes; no test waits in real time.
 */
class FiringEngineFenceTest {
    static final long LEAD_MS = 500; // the window in which a test acts on a claimed, unsent attempt
    static final long T0 = 1_750_000_000_000L;

    final ManualTime time = new ManualTime();
    final ManualClock clock = time.clock;
    final ManualScheduler scheduler = time.scheduler;
    final LoggedDefects defects = time.defects;
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
        time.stopAndCheck(engine);
    }

    private void runUntil(String what, BooleanSupplier done, long maxMs) {
        time.runUntil(what, done, maxMs);
    }

    /** Moves fake time past {@code time}, running every task due on the way. */
    private void runPast(long time) {
        scheduler.advanceTo(Math.max(clock.millis(), time + 1));
    }

    private void start(ServiceDefinition service, Function<Delivery, CompletableFuture<DeliveryResult>> receiver) {
        start(service, receiver, new EngineSettings(60_000, 50, 100, 100, 10_000, 50, 2, 50, LEAD_MS, 0));
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
                clock,
                settings,
                EngineSchedulers.allOn(scheduler));
        engine.start();
    }

    /** The test service with another {@code maxInFlight}. */
    static ServiceDefinition service(int maxInFlight) {
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
        runUntil("job 1 claimed", () -> state(1) == JobState.RUNNING, 5_000);
    }

    @Test
    void anAttemptClaimedAheadIsSentAtItsFireTimeWithoutAStoreCallOnTheWay() {
        long fireAt = clock.millis() + 800;
        startWithJob1ClaimedAhead(fireAt);
        assertThat(clock.millis()).as("claimed ahead").isLessThan(fireAt);
        runUntil("sent", () -> delivered.size() == 1, 5_000);
        assertThat(delivered.get(0).firedAt()).as("never early").isGreaterThanOrEqualTo(fireAt);
        assertThat(delivered.get(0).firedAt()).as("on time").isEqualTo(fireAt);
        // the claim was the database check: from the timer to the dispatcher, memory only
        assertThat(store.sendPathCalls)
                .as("store calls on the send path: the timer, the gate, the fence (give-backs, renewals)")
                .isEmpty();
    }

    /** The engine as the holder of its attempts (in a cluster, other nodes reach it through ZooKeeper). */
    private AttemptHolders holders() {
        return (node, jobId, attempt) ->
                "n1".equals(node) ? engine.withhold(jobId, attempt) : AttemptHolders.Answer.UNKNOWN;
    }

    @Test
    void anAttemptClaimedAheadAndThenWithheldForACancelIsNotSent() {
        long fireAt = clock.millis() + 800;
        startWithJob1ClaimedAhead(fireAt);
        assertThat(clock.millis()).as("claimed ahead, before its fire time").isLessThan(fireAt);
        // a job it never claimed (an earlier life's): it cannot say. (Not "attempt 2 of job 1": while
        // a loader's late copy of job 1 is in a claim round, which then fails, the node answers for
        // a claim it may be about to take: docs/design.md, "Known limit")
        assertThat(engine.withhold(99, 1)).as("not an attempt it holds").isEqualTo(AttemptHolders.Answer.UNKNOWN);
        assertThat(store.cancelRunning(1, holders(), true)).isEqualTo(AttemptHolders.Answer.WITHHELD);
        assertThat(engine.inFlight()).as("its slots are freed at once").isZero();
        assertThat(engine.withhold(1, 1))
                .as("asked again (a retried cancel): it never left")
                .isEqualTo(AttemptHolders.Answer.WITHHELD);
        runPast(fireAt + 300);
        assertThat(delivered).isEmpty();
        assertThat(store.givenBack)
                .as("the give-back that follows a withholding finds the job canceled: nothing to undo")
                .isEmpty();
    }

    @Test
    void anAttemptWithheldForACancelThatRolledBackIsGivenBackAndFiresAtOnce() {
        long fireAt = clock.millis() + 800;
        startWithJob1ClaimedAhead(fireAt);
        assertThat(store.cancelRunning(1, holders(), false)).isEqualTo(AttemptHolders.Answer.WITHHELD);
        // not RUNNING unsent until its deadline: DELAYED again, claimed again, sent at its time
        runUntil("sent", () -> delivered.size() == 1, 5_000);
        assertThat(store.givenBack).containsExactly(new AttemptStore.ClaimedAttempt(1, 1));
        assertThat(delivered.get(0).firedAt()).isGreaterThanOrEqualTo(fireAt);
        assertThat(delivered.get(0).job().attempts())
                .as("the withheld attempt was taken back")
                .isEqualTo(1);
    }

    @Test
    void anAttemptWithheldWhileItsClaimCommitsIsDroppedAsItArrives() {
        // the cancel locks the row just after the claim committed, before the claimed attempt has
        // reached the sender: the node holds no attempt yet, and leaves a tombstone for it
        java.util.concurrent.atomic.AtomicReference<AttemptHolders.Answer> answer =
                new java.util.concurrent.atomic.AtomicReference<>();
        store.duringClaim = () -> {
            if (answer.get() == null) {
                answer.set(store.cancelRunning(1, holders(), true));
            }
        };
        store.add(1, clock.millis() - 10, 0); // overdue: it would be sent straight away
        start(service(10), FiringEngineFenceTest::ok);
        runUntil("the claim and the cancel inside it", () -> answer.get() != null, 5_000);
        assertThat(answer.get()).isEqualTo(AttemptHolders.Answer.WITHHELD);
        runPast(clock.millis() + 300);
        assertThat(delivered).isEmpty();
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void anAttemptAlreadySentIsReportedUnderWayAndStillEnds() {
        CompletableFuture<DeliveryResult> held = new CompletableFuture<>();
        store.add(1, clock.millis(), 0);
        start(service(10), d -> held); // a receiver that answers when the test says
        runUntil("sent", () -> delivered.size() == 1, 5_000);
        assertThat(engine.withhold(1, 1)).isEqualTo(AttemptHolders.Answer.UNDER_WAY);
        scheduler.advance(100);
        held.complete(DeliveryResult.success(null)); // answered 100 ms after the send
        runUntil("its result written", () -> state(1) == JobState.FINISHED, 5_000);
        assertThat(engine.withhold(1, 1))
                .as("released, but sent: under way still, not unknown (its result may not be written yet)")
                .isEqualTo(AttemptHolders.Answer.UNDER_WAY);
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void anAttemptWaitingAtItsFullGateIsNotSentOnceWithheld() {
        Map<Long, CompletableFuture<DeliveryResult>> held = new ConcurrentHashMap<>();
        long now = clock.millis();
        store.add(1, now, 0);
        store.add(2, now, 0);
        start(service(1), d -> held.computeIfAbsent(d.job().id(), id -> new CompletableFuture<>()));
        runUntil(
                "both claimed, one sent",
                () -> delivered.size() == 1 && state(1) == JobState.RUNNING && state(2) == JobState.RUNNING,
                5_000);
        long sending = delivered.get(0).job().id();
        long waiting = 3 - sending;
        assertThat(engine.withhold(sending, 1)).isEqualTo(AttemptHolders.Answer.UNDER_WAY);
        assertThat(store.cancelRunning(waiting, holders(), true)).isEqualTo(AttemptHolders.Answer.WITHHELD);
        assertThat(engine.inFlight()).as("only the delivery under way").isEqualTo(1);
        scheduler.advance(100);
        held.get(sending).complete(DeliveryResult.success(null)); // its slot at the gate is free again
        runPast(clock.millis() + 500);
        assertThat(delivered).extracting(d -> d.job().id()).containsExactly(sending);
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void anAttemptWhoseClaimEndedNearItsDeadlineIsRenewedBeforeItIsSent() {
        // timeout 1 s: the margin is half of it. The claim takes 600 ms (a rebalance's contention:
        // the clock moves on inside it), leaving 400 ms of its deadline: a node taking the shard over
        // would time it out while its receiver works, so it gets a fresh deadline (conditional on
        // being still this node's) first
        long now = clock.millis();
        store.jobs.put(1L, FakeJobStore.job(1, JobState.DELAYED, now, now, 0, 5, null, 1_000, 0));
        java.util.concurrent.atomic.AtomicBoolean slowed = new java.util.concurrent.atomic.AtomicBoolean();
        store.duringClaim = () -> {
            if (slowed.compareAndSet(false, true)) {
                clock.advance(600);
            }
        };
        start(service(10), FiringEngineFenceTest::ok);
        runUntil("finished", () -> state(1) == JobState.FINISHED, 5_000);
        // on threads, a machine too loaded to send within half a second of the renewal gave the
        // attempt back instead (claimed and sent again, never twice); on fake time it is sent at once
        assertThat(store.renewals).isNotEmpty().containsOnly(new AttemptStore.ClaimedAttempt(1, 1));
        assertThat(store.givenBack).isEmpty();
        assertThat(delivered).hasSize(1);
    }

    @Test
    void anAttemptWhoseShardMovedBeforeItsFireTimeIsGivenBackUnsent() {
        long fireAt = clock.millis() + 800;
        startWithJob1ClaimedAhead(fireAt);
        shards.replace(List.of()); // the master gave shard 0 to another node
        runUntil("given back", () -> !store.givenBack.isEmpty(), 5_000);
        assertThat(clock.millis())
                .as("given back at once, not at its fire time: the new owner is reading the shard now")
                .isLessThan(fireAt);
        runPast(fireAt + 300);
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
        store.add(1, clock.millis(), 0);
        start(service(10), FiringEngineFenceTest::ok);
        runPast(clock.millis() + 500);
        assertThat(store.claims).as("not claimed without the lease").hasValue(0);
        assertThat(delivered).isEmpty();
        lease.set(true);
        runUntil("sent", () -> delivered.size() == 1, 5_000);
    }

    @Test
    void anAttemptClaimedAheadIsGivenBackUnsentWhenTheLeaseLapsesBeforeItsFireTime() {
        long fireAt = clock.millis() + 800;
        startWithJob1ClaimedAhead(fireAt);
        lease.set(false); // frozen past its session: it still owns shard 0 as far as it knows
        runPast(fireAt + 300);
        assertThat(delivered).isEmpty();
        assertThat(store.givenBack).containsExactly(new AttemptStore.ClaimedAttempt(1, 1));
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void anOverdueAttemptIsNotSentStraightFromAClaimDuringWhichTheLeaseLapsed() {
        // the straight path skips the database fence (the claim was the check): a freeze inside the
        // claim is caught by the lease, which the frozen time has run out
        store.duringClaim = () -> lease.set(false);
        store.add(1, clock.millis() - 10, 0);
        start(service(10), FiringEngineFenceTest::ok);
        runUntil("given back", () -> !store.givenBack.isEmpty(), 5_000);
        runPast(clock.millis() + 300);
        assertThat(delivered).isEmpty();
        assertThat(store.givenBack).containsExactly(new AttemptStore.ClaimedAttempt(1, 1));
        assertThat(state(1)).isEqualTo(JobState.DELAYED);
    }

    @Test
    void aGainedShardIsReadAgainSoonForWhatItsPreviousOwnerGivesBackJustAfterTheFirstRead() {
        long fireAt = clock.millis() + 1_500;
        // claimed ahead by n2, the shard's owner until now
        store.jobs.put(1L, FakeJobStore.job(1, JobState.RUNNING, fireAt, fireAt, 1, 5, "n2", 5_000, 0));
        shards.replace(List.of());
        // loader and catch-up far apart: only the hand-off re-reads can find the job in time
        start(
                service(10),
                FiringEngineFenceTest::ok,
                new EngineSettings(60_000, 5_000, 30_000, 30_000, 10_000, 50, 2, 50, LEAD_MS, 0));
        shards.replace(List.of(0)); // this node gains shard 0 and reads it: the job is RUNNING, not loaded
        runUntil("shard 0 read", () -> store.reads.containsKey(0), 1_000);
        scheduler.advance(50);
        store.add(1, fireAt, 0); // n2 heard of the same assignment a moment later and gave the attempt back
        runUntil("sent", () -> !delivered.isEmpty(), 5_000);
        assertThat(clock.millis() - fireAt)
                .as("delivered at its fire time, not at the next catch-up sweep 30 s later")
                .isLessThan(500);
        assertThat(delivered).extracting(d -> d.job().id()).containsExactly(1L);
    }

    @Test
    void attemptsQueuedAtAFullGateAreGivenBackAtOnceWhenTheirShardMoves() {
        // behind a delivery to a slow receiver they would wait for its answer, or for their deadline,
        // at which the new owner would end them as TIMEOUTs that never reached the receiver
        Map<Long, CompletableFuture<DeliveryResult>> held = new ConcurrentHashMap<>();
        long now = clock.millis();
        store.add(1, now, 0);
        store.add(2, now, 0); // maxInFlight 1: claimed with job 1 (twice the limit), queued at the gate
        start(service(1), d -> held.computeIfAbsent(d.job().id(), id -> new CompletableFuture<>()));
        runUntil(
                "both claimed, one sent",
                () -> delivered.size() == 1 && state(1) == JobState.RUNNING && state(2) == JobState.RUNNING,
                5_000);
        long sending = delivered.get(0).job().id();

        shards.replace(List.of()); // the master gave shard 0 to another node

        runUntil("given back", () -> store.givenBack.size() == 1, 2_000);
        assertThat(held.get(sending)).as("the delivery under way is still open").isNotDone();
        for (AttemptStore.ClaimedAttempt back : store.givenBack) {
            assertThat(back.jobId()).isNotEqualTo(sending);
            assertThat(state(back.jobId())).isEqualTo(JobState.DELAYED);
            assertThat(store.jobs.get(back.jobId()).attempts()).isZero();
        }
        assertThat(engine.inFlight()).as("only the delivery under way").isEqualTo(1);
        scheduler.advance(100);
        held.get(sending).complete(DeliveryResult.success(null));
        runUntil("its result written", () -> state(sending) == JobState.FINISHED, 5_000);
        assertThat(delivered).hasSize(1);
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void anAttemptThatWaitedAtItsGateUntilItsDeadlineNearedIsRenewedAndSentInItsTurn() {
        // timeout 1 s (margin 500 ms); the receiver holds job 1 for 700 ms while job 2 waits at
        // the gate (maxInFlight 1). Given back, job 2 would be claimed again at the end of the line
        long now = clock.millis();
        store.jobs.put(1L, FakeJobStore.job(1, JobState.DELAYED, now, now, 0, 5, null, 1_000, 0));
        store.jobs.put(2L, FakeJobStore.job(2, JobState.DELAYED, now + 1, now + 1, 0, 5, null, 1_000, 0));
        start(service(1), d -> d.job().id() == 1 ? answeredAfter(700) : ok(d));
        runUntil("both finished", () -> state(1) == JobState.FINISHED && state(2) == JobState.FINISHED, 5_000);
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

    /** A receiver that answers {@code ms} of fake time after the send: a task on the scheduler completes it. */
    private CompletableFuture<DeliveryResult> answeredAfter(long ms) {
        CompletableFuture<DeliveryResult> answer = new CompletableFuture<>();
        scheduler.after(ms, () -> answer.complete(DeliveryResult.success(null)));
        return answer;
    }

    @Test
    void aDeliveryStillUnansweredWhenAStopsGraceEndsIsWrittenAsATimeoutThatSaysSo() {
        store.add(1, clock.millis(), 0);
        start(service(10), d -> new CompletableFuture<>()); // a receiver slower than the grace: never answers
        runUntil("sent", () -> delivered.size() == 1, 5_000);

        FiringEngine stopping = engine;
        engine = null;
        long started = clock.millis();
        stopping.stop(300);

        assertThat(Duration.ofMillis(clock.millis() - started))
                .as("the stop's fake time: its grace, and not much more")
                .isGreaterThanOrEqualTo(Duration.ofMillis(300))
                .isLessThan(Duration.ofSeconds(5));
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
        long past = clock.millis() - 10_000;
        for (long id = 1; id <= 500; id++) {
            store.jobs.put(id, FakeJobStore.job(id, JobState.RUNNING, past, past + 5_000, 1, 5, "n2", 5_000, 0));
        }
        store.refuseWrites = true;
        start(service(10), FiringEngineFenceTest::ok);
        int mostQueued = 0;
        long until = clock.millis() + 3_000; // some 30 sweeps
        while (clock.millis() < until) {
            scheduler.advance(20);
            mostQueued = Math.max(mostQueued, engine.pendingResults());
        }
        assertThat(store.results).as("nothing written while writes are refused").isEmpty();
        assertThat(mostQueued).as("queued at most one result per attempt").isBetween(1, 500);

        store.refuseWrites = false;
        // each timed-out attempt is retried (attempt 2, delivered at once): wait for those to end
        runUntil(
                "every job finished",
                () -> store.jobs.values().stream().allMatch(j -> j.state() == JobState.FINISHED),
                15_000);
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

    @Test
    void aResultTheStoreRefusesIsSetAsideAndTheOthersAreWritten() {
        long now = clock.millis();
        for (long id = 1; id <= 20; id++) {
            store.add(id, now, 0);
        }
        store.poison.add(7L);
        start(service(100), FiringEngineFenceTest::ok);
        runUntil(
                "7 failed, the others finished",
                () -> state(7) == JobState.FAILED
                        && store.jobs.keySet().stream()
                                .filter(id -> id != 7)
                                .allMatch(id -> state(id) == JobState.FINISHED),
                10_000);
        assertThat(store.quarantined).extracting(AttemptResult::jobId).containsExactly(7L);
        assertThat(quarantined.get()).isEqualTo(1);
        assertThat(delivered).hasSize(20);
    }

    @Test
    void attemptsThatNeverReachedTheReceiverDoNotUseUpTheBudget() {
        AtomicInteger refusals = new AtomicInteger(3);
        store.add(1, clock.millis(), 0);
        start(
                service(10),
                d -> CompletableFuture.completedFuture(
                        refusals.getAndDecrement() > 0
                                ? DeliveryResult.notDelivered("connection refused")
                                : DeliveryResult.success(null)));
        runUntil("finished", () -> state(1) == JobState.FINISHED, 10_000);
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
