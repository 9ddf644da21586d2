package dev.hourglass.node.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.api.ReserveRequest;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.JobReads;
import dev.hourglass.node.core.port.PullListener;
import dev.hourglass.node.core.port.ReservationStore;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.testing.ManualClock;
import dev.hourglass.node.testing.ManualScheduler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The long poll on manual time: what waiting costs (per service, not per waiter), who wakes a
 * waiter, in which order waiters are served, and that no reservation is made for nobody.
 */
class PullConsumersTest {
    static final long T0 = 1_800_000_000_000L;
    static final String APP = "shop";

    final ManualClock clock = new ManualClock(T0);
    final ManualScheduler time = new ManualScheduler(clock);
    final FakeReservations store = new FakeReservations();
    PullConsumers pull;

    @BeforeEach
    void start() {
        pull = new PullConsumers(
                store, JOBS_UNUSED, new Services(), "n1", time, time, new PullConsumers.Settings(100, 10_000));
        pull.start();
    }

    /** The store: DELAYED jobs per service in due order, and a count of each kind of call. */
    static class FakeReservations implements ReservationStore {
        final Map<String, Deque<HeldJob>> ready = new java.util.HashMap<>();
        final Map<String, Long> next = new java.util.HashMap<>();
        final List<HeldJob> givenBack = new ArrayList<>();
        /** Each reserve: the horizon it reached to. */
        final List<Long> horizons = new ArrayList<>();

        int reserves;
        int nextDueReads;
        /** How many one reserve takes at most: the service's maxInFlight, as the store applies it. */
        int maxInFlight = Integer.MAX_VALUE;
        /** Runs in each reserve after it read: what commits meanwhile, which it did not see. */
        Runnable afterRead = () -> {};

        /** A job due long ago: ready whenever asked. */
        void ready(String service, long id) {
            readyAt(service, id, T0 - 60_000);
        }

        /** A job due at {@code dueAt} (added in due order). */
        void readyAt(String service, long id, long dueAt) {
            ready.computeIfAbsent(service, s -> new ArrayDeque<>()).add(new HeldJob(job(service, id), dueAt));
        }

        @Override
        public List<HeldJob> reserve(String app, List<String> services, int max, Long ttrMs, String node, long now) {
            List<HeldJob> got = new ArrayList<>();
            for (String s : services) {
                if (got.size() < max) {
                    got.addAll(reserveAhead(app, s, max - got.size(), ttrMs, node, now, now, 0)
                            .jobs());
                }
            }
            return got;
        }

        @Override
        public Ahead reserveAhead(
                String app, String service, int max, Long ttrMs, String node, long now, long horizon, long holdMs) {
            reserves++;
            horizons.add(horizon);
            List<HeldJob> got = new ArrayList<>();
            Deque<HeldJob> q = ready.getOrDefault(service, new ArrayDeque<>());
            int limit = Math.min(max, maxInFlight);
            while (!q.isEmpty() && got.size() < limit && q.peek().dueAt() <= horizon) {
                got.add(q.poll());
            }
            boolean tookAll = q.isEmpty() || q.peek().dueAt() > horizon;
            afterRead.run();
            return new Ahead(got, tookAll);
        }

        @Override
        public int giveBack(Collection<HeldJob> held, String node, long now) {
            givenBack.addAll(held);
            held.forEach(h -> ready.computeIfAbsent(h.job().service(), s -> new ArrayDeque<>())
                    .addFirst(h));
            return held.size();
        }

        @Override
        public Map<String, Long> nextDue(Collection<String> serviceKeys) {
            nextDueReads++;
            Map<String, Long> out = new java.util.HashMap<>();
            for (String key : serviceKeys) {
                if (next.containsKey(key)) {
                    out.put(key, next.get(key));
                }
            }
            return out;
        }

        @Override
        public Map<String, Backlog> backlogs(Collection<String> serviceKeys, long now) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<Long> touch(long jobId, int attempt, long ttrMs, long maxLifeMs, long now) {
            throw new UnsupportedOperationException();
        }

        @Override
        public QueueView queue(String app, String service, int peek, long now) {
            throw new UnsupportedOperationException();
        }
    }

    static final JobReads JOBS_UNUSED = null;

    static final class Services implements ServiceLookup {
        @Override
        public Optional<ServiceDefinition> find(String app, String name) {
            Protocol p = name.startsWith("push") ? Protocol.HTTP : Protocol.PULL;
            return Optional.of(new ServiceDefinition(
                    app,
                    name,
                    p,
                    null,
                    null,
                    null,
                    null,
                    3,
                    30_000,
                    Backoff.DEFAULT,
                    AckMode.CONSUMER,
                    100,
                    null,
                    null,
                    T0,
                    T0,
                    // "rated…": a rate-limited service
                    name.startsWith("rated")
                            ? new dev.hourglass.node.core.service.FlowControl(
                                    new dev.hourglass.node.core.service.FlowControl.RateLimit(100, 10), null)
                            : null,
                    null));
        }

        @Override
        public Set<String> pulledServiceKeys() {
            return Set.of();
        }

        @Override
        public Set<String> pausedServiceKeys() {
            return Set.of();
        }

        @Override
        public boolean refresh() {
            return false;
        }
    }

    static Job job(String service, long id) {
        return Job.builder()
                .id(id)
                .app(APP)
                .service(service)
                .state(JobState.RUNNING)
                .fireAt(T0)
                .dueAt(T0 + 30_000)
                .attempts(1)
                .maxAttempts(3)
                .timeoutMs(30_000)
                .payload("{}")
                .attributes(Map.of())
                .build();
    }

    /** A job of "work" due at {@code dueAt}, made due through this node (stored, then signaled). */
    private void madeDueHere(long id, long dueAt) {
        store.readyAt("work", id, dueAt);
        pull.due(Job.serviceKey(APP, "work"), dueAt);
    }

    /** A waiting reserve (10 s) of up to {@code max} jobs. */
    private CompletableFuture<List<Job>> reserveUpTo(int max, String service) {
        return pull.reserve(
                APP,
                new ReserveRequest().setServices(List.of(service)).setMax(max).setWaitMs(10_000L));
    }

    private CompletableFuture<List<Job>> reserve(long waitMs, String... services) {
        return pull.reserve(
                APP, new ReserveRequest().setServices(List.of(services)).setWaitMs(waitMs));
    }

    @Test
    void waitingCostsOneReadPerServiceAndTickWhateverTheNumberOfWaiters() {
        List<CompletableFuture<List<Job>>> waiting = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            waiting.add(reserve(5_000, "work"));
        }
        assertThat(pull.waiting()).isEqualTo(1_000);
        time.runDue();
        assertThat(store.reserves)
                .as("arriving together at an empty service: one reserve finds it empty for all of them")
                .isLessThanOrEqualTo(2);
        int reserves = store.reserves;
        time.advance(1_000);
        assertThat(store.nextDueReads).as("one read per 100 ms for all of them").isBetween(9, 11);
        assertThat(store.reserves).as("no reserve while nothing is due").isEqualTo(reserves);
        CompletableFuture<List<Job>> late = reserve(4_000, "work");
        time.runDue();
        assertThat(store.reserves)
                .as("one more arriving while the watcher knows the service empty: no reserve of its own")
                .isEqualTo(reserves);
        waiting.add(late);
        time.advance(4_000);
        assertThat(waiting).allMatch(f -> f.isDone() && f.join().isEmpty());
        assertThat(pull.waiting()).isZero();
        int reads = store.nextDueReads;
        time.advance(1_000);
        assertThat(store.nextDueReads).as("nobody waits: no reads").isEqualTo(reads);
    }

    @Test
    void theMetricsHearEachJobAnsweredWithTheTimeItWasDueAndTheTimeOfTheAnswer() {
        List<long[]> heard = new ArrayList<>(); // due time, answer time
        pull.reportTo(new PullListener() {
            @Override
            public void answered(List<ReservationStore.HeldJob> jobs, long waitedMs, long at) {
                jobs.forEach(h -> heard.add(new long[] {h.dueAt(), at}));
            }
        });
        CompletableFuture<List<Job>> waiting = reserve(10_000, "work");
        time.runDue();
        madeDueHere(1, T0 + 700); // reserved once due (no reserving ahead in these settings)
        time.advanceTo(T0 + 700);
        assertThat(waiting).isCompleted();
        store.readyAt("work", 2, T0 + 750); // due while nobody waits
        time.advanceTo(T0 + 900);
        assertThat(reserve(0, "work").join()).extracting(Job::id).containsExactly(2L);

        assertThat(heard)
                .as("the reserve ahead's job when it was due; the one reserved at once after its wait for a consumer")
                .containsExactly(new long[] {T0 + 700, T0 + 700}, new long[] {T0 + 750, T0 + 900});
    }

    @Test
    void aJobMadeDueHereWakesTheFirstWaiterAtItsDueTimeAndTheRestWaitOn() {
        CompletableFuture<List<Job>> first = reserve(10_000, "work");
        CompletableFuture<List<Job>> second = reserve(10_000, "work");
        time.advance(200);
        store.ready("work", 1); // becomes ready at T0 + 700, made due through this node
        pull.due(Job.serviceKey(APP, "work"), T0 + 700);
        time.advanceTo(T0 + 699);
        assertThat(first).isNotDone();
        time.advanceTo(T0 + 700);
        assertThat(first).isCompleted();
        assertThat(first.join()).extracting(Job::id).containsExactly(1L);
        assertThat(second).as("nothing left for it: it waits on").isNotDone();
        assertThat(pull.waiting()).isEqualTo(1);
    }

    /**
     * Jobs submitted in due order signal their due times in that order: each is a wake of its own,
     * not only the first planned (the later ones waited for a consumer's next reserve; the watcher
     * here knows of none), also for a consumer that comes to wait after the signal.
     */
    @Test
    void everyDueTimeMadeHereWakesTheWaitersNotOnlyTheFirst() {
        String key = Job.serviceKey(APP, "work");
        CompletableFuture<List<Job>> first = reserve(10_000, "work");
        CompletableFuture<List<Job>> second = reserve(10_000, "work");
        time.runDue(); // their first reserve finds nothing
        pull.due(key, T0 + 100);
        pull.due(key, T0 + 200);
        pull.due(key, T0 + 300);
        time.advanceTo(T0 + 99);
        store.ready("work", 1);
        time.advanceTo(T0 + 100);
        assertThat(first.join()).extracting(Job::id).containsExactly(1L);
        time.advanceTo(T0 + 199);
        store.ready("work", 2);
        assertThat(second).isNotDone();
        time.advanceTo(T0 + 200);
        assertThat(second).as("woken at the second due time").isCompleted();
        assertThat(second.join()).extracting(Job::id).containsExactly(2L);
        time.advanceTo(T0 + 250);
        CompletableFuture<List<Job>> third = reserve(10_000, "work"); // after the signal of T0 + 300
        time.advanceTo(T0 + 299);
        store.ready("work", 3);
        assertThat(third).isNotDone();
        time.advanceTo(T0 + 300);
        assertThat(third)
                .as("woken at the third due time, signaled before it came")
                .isCompleted();
        assertThat(third.join()).extracting(Job::id).containsExactly(3L);
        assertThat(store.nextDue(List.of(key)))
                .as("the watcher knew of none of them")
                .isEmpty();
    }

    /** A waiter that got fewer than it asked for took what was ready: the next is not asked. */
    @Test
    void aWakeStopsAtTheFirstWaiterThatGotLessThanItsMax() {
        List<CompletableFuture<List<Job>>> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiting.add(pull.reserve(
                    APP,
                    new ReserveRequest().setServices(List.of("work")).setMax(5).setWaitMs(10_000L)));
        }
        time.runDue();
        int before = store.reserves;
        store.ready("work", 1);
        store.ready("work", 2);
        pull.due(Job.serviceKey(APP, "work"), T0 + 10);
        time.advanceTo(T0 + 10);
        assertThat(waiting.get(0).join()).extracting(Job::id).containsExactly(1L, 2L);
        assertThat(store.reserves - before).as("one reserve: it got 2 of 5").isEqualTo(1);
        assertThat(waiting.get(1)).isNotDone();
        assertThat(waiting.get(2)).isNotDone();
    }

    @Test
    void aJobMadeDueThroughAnotherNodeIsFoundByTheWatcher() {
        CompletableFuture<List<Job>> waiting = reserve(10_000, "work");
        store.ready("work", 7);
        store.next.put(Job.serviceKey(APP, "work"), T0 + 50); // due already when the watcher reads
        time.advance(100);
        assertThat(waiting).isCompleted();
        assertThat(waiting.join()).extracting(Job::id).containsExactly(7L);
    }

    @Test
    void aWaiterOfSeveralServicesIsServedInItsOrderWhicheverWakesIt() {
        CompletableFuture<List<Job>> waiting = pull.reserve(
                APP,
                new ReserveRequest()
                        .setServices(List.of("high", "low"))
                        .setMax(5)
                        .setWaitMs(10_000L));
        store.ready("low", 1);
        store.ready("high", 2);
        pull.due(Job.serviceKey(APP, "low"), T0 + 10);
        time.advance(10);
        assertThat(waiting.join()).extracting(Job::id).containsExactly(2L, 1L);
    }

    @Test
    void aJobMadeDueJustBeforeAReserveStartsToWaitIsNotLeftToTheWatcher() {
        // the job is made due through this node after the reserve's own read, before it waits:
        // the read below finds nothing, the signal comes as it starts to wait
        CompletableFuture<List<Job>> waiting;
        pull.due(Job.serviceKey(APP, "work"), T0);
        waiting = reserve(10_000, "work");
        store.ready("work", 3);
        time.runDue();
        assertThat(waiting)
                .as("woken from the signal, before the watcher's first read")
                .isCompleted();
        assertThat(store.nextDueReads).isZero();
    }

    @Test
    void badRequestsAreRefusedWithTheirFieldAndReserveNothing() {
        assertThat(field(new ReserveRequest().setServices(List.of()))).isEqualTo("services");
        assertThat(field(new ReserveRequest().setServices(List.of("push-orders"))))
                .isEqualTo("services");
        assertThat(field(new ReserveRequest().setServices(List.of("work")).setMax(0)))
                .isEqualTo("max");
        assertThat(field(new ReserveRequest().setServices(List.of("work")).setTtrMs(999L)))
                .isEqualTo("ttrMs");
        assertThat(field(new ReserveRequest().setServices(List.of("work")).setWaitMs(30_001L)))
                .isEqualTo("waitMs");
        assertThat(store.reserves).isZero();
    }

    private String field(ReserveRequest r) {
        return catchThrowableOfType(HourglassException.class, () -> pull.reserve(APP, r))
                .field();
    }

    @Test
    void aDatabaseFailureReachesTheWaitingConsumerItWasServing() {
        FakeReservations failing = new FakeReservations() {
            @Override
            public Ahead reserveAhead(
                    String app, String service, int max, Long ttrMs, String node, long now, long horizon, long holdMs) {
                throw new dev.hourglass.node.core.port.StoreUnavailableException("database down", null);
            }
        };
        pull = new PullConsumers(
                failing, JOBS_UNUSED, new Services(), "n1", time, time, new PullConsumers.Settings(100, 10_000));
        pull.start();
        CompletableFuture<List<Job>> waiting = reserve(5_000, "work");
        time.runDue();
        assertThat(waiting).isCompletedExceptionally();
        assertThat(pull.waiting()).isZero();
    }

    // ---- reserving ahead (the node's defaults: 100 ms ahead, held up to 200 ms past the due time) ----

    private void reservingAhead() {
        reservingAhead(time);
    }

    /** Reserving ahead, with the reserving threads' tasks on {@code reservers}. */
    private void reservingAhead(ManualScheduler reservers) {
        pull.close();
        pull = new PullConsumers(
                store,
                JOBS_UNUSED,
                new Services(),
                "n1",
                time,
                reservers,
                new PullConsumers.Settings(100, 10_000, 100, 200));
        pull.start();
    }

    @Test
    void aJobKnownDueIsReservedAheadAndHandedOutAtItsDueTimeNeverBefore() {
        reservingAhead();
        CompletableFuture<List<Job>> waiting = reserve(10_000, "work");
        time.runDue();
        int before = store.reserves;
        store.readyAt("work", 1, T0 + 500);
        pull.due(Job.serviceKey(APP, "work"), T0 + 500);
        time.advanceTo(T0 + 399);
        assertThat(store.reserves).as("not yet a lead before its due time").isEqualTo(before);
        time.advanceTo(T0 + 400);
        assertThat(store.reserves).as("reserved a lead ahead").isEqualTo(before + 1);
        assertThat(store.horizons.get(store.horizons.size() - 1)).isEqualTo(T0 + 600);
        time.advanceTo(T0 + 499);
        assertThat(waiting).as("held, not handed out before its due time").isNotDone();
        time.advanceTo(T0 + 500);
        assertThat(waiting).isCompleted();
        assertThat(waiting.join()).extracting(Job::id).containsExactly(1L);
        assertThat(store.reserves).as("handed out from memory").isEqualTo(before + 1);
    }

    /**
     * A rate-limited service is not reserved ahead: its tokens are taken when a reservation is
     * made, so jobs taken ahead of a due time they share would all start at it, more at one
     * instant than its burst.
     */
    @Test
    void aRateLimitedServiceIsReservedAtTheDueTimeNotAhead() {
        reservingAhead();
        CompletableFuture<List<Job>> waiting = reserve(10_000, "rated");
        time.runDue();
        int before = store.reserves;
        store.readyAt("rated", 1, T0 + 500);
        pull.due(Job.serviceKey(APP, "rated"), T0 + 500);
        time.advanceTo(T0 + 499);
        assertThat(store.reserves).as("nothing reserved before its due time").isEqualTo(before);
        assertThat(waiting).isNotDone();
        time.advanceTo(T0 + 500);
        assertThat(store.reserves).isEqualTo(before + 1);
        assertThat(store.horizons.get(store.horizons.size() - 1))
                .as("what is due now only")
                .isEqualTo(T0 + 500);
        assertThat(waiting.join()).extracting(Job::id).containsExactly(1L);
    }

    @Test
    void oneReserveAheadServesTheJobsDueWithinItsReach() {
        reservingAhead();
        String key = Job.serviceKey(APP, "work");
        List<CompletableFuture<List<Job>>> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiting.add(reserve(10_000, "work"));
        }
        time.runDue();
        int before = store.reserves;
        for (int i = 0; i < 3; i++) {
            store.readyAt("work", 10 + i, T0 + 500 + 20 * i);
            pull.due(key, T0 + 500 + 20 * i);
        }
        time.advanceTo(T0 + 519);
        assertThat(waiting.get(0).join()).extracting(Job::id).containsExactly(10L);
        assertThat(waiting.get(1)).isNotDone();
        time.advanceTo(T0 + 520);
        assertThat(waiting.get(1).join()).extracting(Job::id).containsExactly(11L);
        time.advanceTo(T0 + 540);
        assertThat(waiting.get(2).join()).extracting(Job::id).containsExactly(12L);
        assertThat(store.horizons.get(before))
                .as("the first reserve, a lead before the first due time, reached past all three")
                .isEqualTo(T0 + 600);
        // it took as many as asked (one per waiter): whether more were due within its reach is not
        // known, so a waiter served after it reserves further ahead once
        assertThat(store.reserves - before).isLessThanOrEqualTo(2);
    }

    /**
     * Under a steady load a submit through this node comes every few milliseconds, during nearly
     * every reserve ahead: a job due far beyond the reach must not make the node forget what the
     * reserve took, or each consumer coming back reserves again, on the service's row lock.
     */
    @Test
    void aJobMadeDueBeyondTheReachDuringAReserveAheadLeavesWhatItTookCovered() {
        reservingAhead();
        String key = Job.serviceKey(APP, "work");
        CompletableFuture<List<Job>> first = reserveUpTo(50, "work");
        time.runDue();
        madeDueHere(1, T0 + 500);
        madeDueHere(2, T0 + 520);
        long[] submitted = {100};
        store.afterRead = () -> { // a job submitted meanwhile, due 3 s later
            long id = submitted[0]++;
            store.readyAt("work", id, T0 + 3_000 + id);
            pull.due(key, T0 + 3_000 + id);
        };
        time.advanceTo(T0 + 400);
        int reservesAhead = store.reserves;
        time.advanceTo(T0 + 500);
        assertThat(first.join()).extracting(Job::id).containsExactly(1L);

        CompletableFuture<List<Job>> again = reserveUpTo(50, "work"); // the consumer comes back at once
        time.runDue();
        assertThat(store.reserves)
                .as("the job due at T0 + 520 was taken by the reserve ahead: nothing to reserve")
                .isEqualTo(reservesAhead);
        time.advanceTo(T0 + 520);
        assertThat(again.join()).extracting(Job::id).containsExactly(2L);
    }

    /**
     * The next held job's hand-out is planned by the hand-out before it, on the timer: planned only
     * when the reserving threads next served the service, it waited behind their transactions.
     */
    @Test
    void heldJobsAreHandedOutAtTheirDueTimesWhileTheReservingThreadsAreBusy() {
        ManualScheduler reservingThreads = new ManualScheduler(clock);
        reservingAhead(reservingThreads);
        CompletableFuture<List<Job>> first = reserve(10_000, "work");
        CompletableFuture<List<Job>> second = reserve(10_000, "work");
        reservingThreads.runDue();
        int before = store.reserves;
        madeDueHere(1, T0 + 500);
        madeDueHere(2, T0 + 520);
        time.advanceTo(T0 + 400);
        reservingThreads.runDue(); // the reserve ahead: both held
        assertThat(store.reserves).isEqualTo(before + 1);

        time.advanceTo(T0 + 500); // from here on the reserving threads are busy: nothing of theirs runs
        assertThat(first).isCompleted();
        assertThat(first.join()).extracting(Job::id).containsExactly(1L);
        time.advanceTo(T0 + 519);
        assertThat(second).isNotDone();
        time.advanceTo(T0 + 520);
        assertThat(second).as("handed out by the timer at its due time").isCompleted();
        assertThat(second.join()).extracting(Job::id).containsExactly(2L);
    }

    /**
     * A waiter's own first reserve may hold a job that no wake is planned for: made due through
     * another node, it is reserved, so the watcher does not see it either.
     */
    @Test
    void aJobHeldByAWaitersFirstReserveIsHandedOutAtItsDueTime() {
        reservingAhead();
        store.readyAt("work", 1, T0 + 150); // through another node: no signal here
        CompletableFuture<List<Job>> waiting = reserve(10_000, "work");
        time.runDue(); // its first reserve reaches T0 + 200: the job is held
        assertThat(store.reserves).isEqualTo(1);
        time.advanceTo(T0 + 149);
        assertThat(waiting).isNotDone();
        time.advanceTo(T0 + 150);
        assertThat(waiting)
                .as("handed out at its due time, not when the wait runs out")
                .isCompleted();
        assertThat(waiting.join()).extracting(Job::id).containsExactly(1L);
    }

    /**
     * A reserve the service's maxInFlight cut short did not take all that is due by its reach: a
     * consumer coming back when there is room again reserves, rather than wait for the watcher.
     */
    @Test
    void aReserveCutShortByMaxInFlightDoesNotCountAsReachingItsHorizon() {
        reservingAhead();
        store.maxInFlight = 1;
        CompletableFuture<List<Job>> first = reserveUpTo(50, "work");
        time.runDue();
        madeDueHere(1, T0 + 500);
        madeDueHere(2, T0 + 520);
        time.advanceTo(T0 + 500); // the reserve at T0 + 400 took one: maxInFlight
        assertThat(first).isCompleted();
        assertThat(first.join()).extracting(Job::id).containsExactly(1L);

        store.maxInFlight = Integer.MAX_VALUE; // its result came back: room again
        CompletableFuture<List<Job>> again = reserveUpTo(50, "work");
        time.advanceTo(T0 + 520);
        assertThat(again)
                .as("reserved on coming back, handed out at its due time")
                .isCompleted();
        assertThat(again.join()).extracting(Job::id).containsExactly(2L);
    }

    /**
     * A reserve ahead that runs past the due time of a job it takes answers its waiter with that
     * job too: held, it would wait for the timer's hand-out, which skips a waiter being served.
     */
    @Test
    void jobsThatComeDueWhileTheReserveTakingThemRunsAreItsWaitersAnswer() {
        ManualScheduler reservingThreads = new ManualScheduler(clock);
        reservingAhead(reservingThreads);
        CompletableFuture<List<Job>> waiting = reserveUpTo(10, "work");
        reservingThreads.runDue(); // its first reserve: nothing due by T0 + 200
        store.readyAt("work", 5, T0 + 290); // made due through another node
        madeDueHere(1, T0 + 400);
        madeDueHere(2, T0 + 450);
        time.advanceTo(T0 + 300); // the wake that reserves ahead for job 1, and finds job 5 due
        store.afterRead = () -> { // the transaction takes 180 ms, within the hold (200 ms)
            store.afterRead = () -> {};
            time.advanceTo(T0 + 480);
        };
        reservingThreads.runDue(); // the watcher's read, then that reserve
        assertThat(waiting).isCompleted();
        assertThat(waiting.join())
                .as("jobs 1 and 2, due at T0 + 400 and 450, came due before the reserve ended")
                .extracting(Job::id)
                .containsExactly(5L, 1L, 2L);
    }

    /**
     * Each job's deadline in the database counts from its due time or the reserve's start,
     * whichever is later, plus the hold: a reserve slower than that does not answer with the job
     * (its consumer would get less than its TTR), which goes back instead.
     */
    @Test
    void aJobAReserveTookButCannotAnswerWithinItsHoldIsGivenBackNotHandedOut() {
        ManualScheduler reservingThreads = new ManualScheduler(clock);
        reservingAhead(reservingThreads);
        CompletableFuture<List<Job>> waiting = reserveUpTo(10, "work");
        reservingThreads.runDue();
        store.readyAt("work", 5, T0 + 250); // due at the reserve's start: to hand out by T0 + 500
        madeDueHere(1, T0 + 400); // to hand out by T0 + 600
        time.advanceTo(T0 + 300);
        store.afterRead = () -> { // the transaction takes 250 ms
            store.afterRead = () -> {};
            time.advanceTo(T0 + 550);
        };
        reservingThreads.runDue();
        assertThat(waiting.join()).extracting(Job::id).containsExactly(1L);
        time.runDue();
        reservingThreads.runDue(); // its give-back
        assertThat(store.givenBack).extracting(h -> h.job().id()).containsExactly(5L);
    }

    /**
     * A held job that comes due while its only waiter is being served by a reserve of its own: the
     * timer's hand-out skips that waiter, so the serve hands it the job when its reserve brings none,
     * rather than leave it to a serve behind the next transactions.
     */
    @Test
    void aHeldJobThatComesDueWhileItsOnlyWaiterIsBeingServedIsItsAnswerWhenTheReserveEnds() {
        ManualScheduler reservingThreads = new ManualScheduler(clock);
        reservingAhead(reservingThreads);
        store.maxInFlight = 1; // each reserve takes one job: its reach ends before the next
        CompletableFuture<List<Job>> waiting = reserve(10_000, "work");
        reservingThreads.runDue();
        madeDueHere(1, T0 + 500);
        madeDueHere(3, T0 + 520);
        time.advanceTo(T0 + 400);
        reservingThreads.runDue(); // holds job 1; job 3 is left
        assertThat(waiting).isNotDone();
        time.advanceTo(T0 + 420); // the wake that reserves ahead for job 3
        store.afterRead = () -> { // meanwhile job 1's hand-out comes, with the waiter being served
            store.afterRead = () -> {};
            time.advanceTo(T0 + 505);
        };
        assertThat(reservingThreads.runNextDue()).isTrue();
        assertThat(waiting).as("not left to the serve planned behind it").isCompleted();
        assertThat(waiting.join()).extracting(Job::id).containsExactly(1L);
    }

    /** The other side: a job made due within the reach during a reserve may be one it did not see. */
    @Test
    void aJobMadeDueWithinTheReachDuringAReserveAheadIsReservedByTheNextOne() {
        reservingAhead();
        String key = Job.serviceKey(APP, "work");
        List<CompletableFuture<List<Job>>> waiting = new ArrayList<>();
        waiting.add(reserve(10_000, "work"));
        waiting.add(reserve(10_000, "work"));
        time.runDue();
        store.readyAt("work", 1, T0 + 500);
        pull.due(key, T0 + 500);
        store.afterRead = () -> { // committed after the reserve read: not taken by it
            store.afterRead = () -> {};
            store.readyAt("work", 2, T0 + 550);
            pull.due(key, T0 + 550);
        };
        time.advanceTo(T0 + 500);
        assertThat(waiting.get(0).join()).extracting(Job::id).containsExactly(1L);
        time.advanceTo(T0 + 550);
        assertThat(waiting.get(1).join())
                .as("reserved by a reserve of its own, at its due time")
                .extracting(Job::id)
                .containsExactly(2L);
    }

    /**
     * A reserve without a wait takes the held jobs that are due, then reserves in the database: one
     * whose hand-out time passes meanwhile would leave its consumer less than its TTR, and goes back.
     */
    @Test
    void aHeldJobWhoseHandOutTimePassesDuringAReserveAtOnceIsGivenBackNotHandedOut() {
        heldForAWaiterWhoseWaitRanOut(); // job 1, due at T0 + 500, to hand out by T0 + 700
        time.advanceTo(T0 + 600);
        store.afterRead = () -> { // the database part takes 150 ms
            store.afterRead = () -> {};
            time.advanceTo(T0 + 750);
        };
        ReserveRequest atOnceUpTo10 =
                new ReserveRequest().setServices(List.of("work")).setMax(10).setWaitMs(0L);
        assertThat(pull.reserve(APP, atOnceUpTo10).join())
                .as("job 1 is not handed out 50 ms late")
                .isEmpty();
        assertThat(store.givenBack).extracting(h -> h.job().id()).containsExactly(1L);
        assertThat(reserve(0, "work").join())
                .as("reservable again, with a deadline of its own")
                .extracting(Job::id)
                .containsExactly(1L);
    }

    /** Job 1, due at T0 + 500, reserved ahead for a waiter whose wait ran out at T0 + 450: held for nobody. */
    private void heldForAWaiterWhoseWaitRanOut() {
        reservingAhead();
        CompletableFuture<List<Job>> waiting = reserve(450, "work");
        time.runDue();
        store.readyAt("work", 1, T0 + 500);
        pull.due(Job.serviceKey(APP, "work"), T0 + 500);
        time.advanceTo(T0 + 450);
        assertThat(waiting.join()).as("its wait ran out before the job was due").isEmpty();
    }

    /**
     * The services' order holds for a reserve at once when a later service has jobs held here: the
     * earlier service's ready jobs in the database come first (the held ones were taken first until
     * 2026-11-28, whatever their service).
     */
    @Test
    void aReserveAtOnceTakesAnEarlierServicesReadyJobBeforeALaterServicesHeldOne() {
        heldForAWaiterWhoseWaitRanOut(); // job 1 of "work", due at T0 + 500, held here
        store.readyAt("first", 2, T0 + 100);
        time.advanceTo(T0 + 550);
        int readsBefore = store.reserves;
        ReserveRequest firstThenWork =
                new ReserveRequest().setServices(List.of("first", "work")).setWaitMs(0L);
        assertThat(pull.reserve(APP, firstThenWork).join())
                .as("the first service's job")
                .extracting(Job::id)
                .containsExactly(2L);
        ReserveRequest twoOfEach = new ReserveRequest()
                .setServices(List.of("first", "work"))
                .setMax(2)
                .setWaitMs(0L);
        assertThat(pull.reserve(APP, twoOfEach).join())
                .as("nothing left of the first: the held job of the second")
                .extracting(Job::id)
                .containsExactly(1L);
        assertThat(store.reserves - readsBefore)
                .as("the first service read for each; the second only after its held job, for the rest")
                .isEqualTo(3);
    }

    @Test
    void aHeldJobNobodyTakesIsGivenBackAfterTheHold() {
        heldForAWaiterWhoseWaitRanOut();
        time.advanceTo(T0 + 699);
        assertThat(store.givenBack).isEmpty();
        time.advanceTo(T0 + 700);
        assertThat(store.givenBack).extracting(h -> h.job().id()).containsExactly(1L);
        CompletableFuture<List<Job>> next = reserve(0, "work");
        assertThat(next.join()).as("reservable again").extracting(Job::id).containsExactly(1L);
    }

    /**
     * Its give-back runs on the reserving threads, which a slow reserve can hold; a consumer asking
     * meanwhile must not be handed a held job past its hand-out time, with less than its TTR left
     * before the deadline the database counts.
     */
    @Test
    void aHeldJobPastItsHandOutTimeIsNotHandedOutWhileItsGiveBackWaits() {
        ManualScheduler reservingThreads = new ManualScheduler(clock);
        reservingAhead(reservingThreads);
        CompletableFuture<List<Job>> waiting = reserve(450, "work");
        reservingThreads.runDue();
        store.readyAt("work", 1, T0 + 500);
        pull.due(Job.serviceKey(APP, "work"), T0 + 500);
        time.advanceTo(T0 + 400);
        reservingThreads.runDue(); // reserved ahead, held: to be handed out by T0 + 700
        time.advanceTo(T0 + 450);
        reservingThreads.runDue();
        assertThat(waiting.join()).as("its wait ran out before the job was due").isEmpty();

        time.advanceTo(T0 + 701); // the reserving threads are busy: no give-back runs
        assertThat(reserve(0, "work").join()).as("past its hand-out time").isEmpty();
        reservingThreads.runDue();
        assertThat(store.givenBack).extracting(h -> h.job().id()).containsExactly(1L);
    }

    @Test
    void aReserveOfAnotherTtrIsNotHandedAJobHeldForOne() {
        reservingAhead();
        CompletableFuture<List<Job>> waiting = reserve(450, "work"); // the default TTR
        time.runDue();
        store.readyAt("work", 1, T0 + 500);
        pull.due(Job.serviceKey(APP, "work"), T0 + 500);
        time.advanceTo(T0 + 450); // reserved ahead at T0 + 400, for the default TTR
        assertThat(waiting.join()).isEmpty();
        CompletableFuture<List<Job>> other = pull.reserve(
                APP,
                new ReserveRequest()
                        .setServices(List.of("work"))
                        .setTtrMs(60_000L)
                        .setWaitMs(100L));
        time.advanceTo(T0 + 550);
        assertThat(other.join()).as("held for another TTR").isEmpty();
        assertThat(reserve(0, "work").join())
                .as("the same TTR: handed out")
                .extracting(Job::id)
                .containsExactly(1L);
    }

    @Test
    void aReserveAtOnceThatFailsStillAnswersWithWhatWasHeld() {
        FakeReservations failingAtOnce = new FakeReservations() {
            @Override
            public List<HeldJob> reserve(
                    String app, List<String> services, int max, Long ttrMs, String node, long now) {
                throw new dev.hourglass.node.core.port.StoreUnavailableException("database down", null);
            }
        };
        pull = new PullConsumers(
                failingAtOnce,
                JOBS_UNUSED,
                new Services(),
                "n1",
                time,
                time,
                new PullConsumers.Settings(100, 10_000, 100, 200));
        pull.start();
        CompletableFuture<List<Job>> waiting = reserve(450, "work");
        time.runDue();
        failingAtOnce.readyAt("work", 1, T0 + 500);
        pull.due(Job.serviceKey(APP, "work"), T0 + 500);
        time.advanceTo(T0 + 450); // reserved ahead at T0 + 400, then the wait ran out
        assertThat(waiting.join()).isEmpty();
        time.advanceTo(T0 + 500);
        CompletableFuture<List<Job>> now = pull.reserve(
                APP, new ReserveRequest().setServices(List.of("work")).setMax(5));
        assertThat(now.join())
                .as("the held job, not the database's error")
                .extracting(Job::id)
                .containsExactly(1L);
    }

    @Test
    void stoppingGivesBackWhatIsHeld() {
        reservingAhead();
        CompletableFuture<List<Job>> waiting = reserve(10_000, "work");
        time.runDue();
        store.readyAt("work", 1, T0 + 500);
        pull.due(Job.serviceKey(APP, "work"), T0 + 500);
        time.advanceTo(T0 + 450);
        pull.close();
        assertThat(waiting.join()).isEmpty();
        assertThat(store.givenBack).extracting(h -> h.job().id()).containsExactly(1L);
    }

    @Test
    void stoppingAnswersEveryWaiter() {
        CompletableFuture<List<Job>> waiting = reserve(10_000, "work");
        pull.close();
        assertThat(waiting).isCompleted();
        assertThat(waiting.join()).isEmpty();
        assertThat(pull.waiting()).isZero();
    }
}
