package dev.hourglass.node.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.api.ReserveRequest;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.JobReads;
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

    /** The store: ready jobs per service, and a count of each kind of read. */
    static class FakeReservations implements ReservationStore {
        final Map<String, Deque<Job>> ready = new java.util.HashMap<>();
        final Map<String, Long> next = new java.util.HashMap<>();
        int reserves;
        int nextDueReads;

        void ready(String service, long id) {
            ready.computeIfAbsent(service, s -> new ArrayDeque<>()).add(job(service, id));
        }

        @Override
        public List<Job> reserve(String app, List<String> services, int max, Long ttrMs, String node, long now) {
            reserves++;
            List<Job> got = new ArrayList<>();
            for (String s : services) {
                Deque<Job> q = ready.getOrDefault(s, new ArrayDeque<>());
                while (!q.isEmpty() && got.size() < max) {
                    got.add(q.poll());
                }
            }
            return got;
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
                    T0));
        }

        @Override
        public Set<String> pulledServiceKeys() {
            return Set.of();
        }

        @Override
        public void refresh() {}
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
            public List<Job> reserve(String app, List<String> services, int max, Long ttrMs, String node, long now) {
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

    @Test
    void stoppingAnswersEveryWaiter() {
        CompletableFuture<List<Job>> waiting = reserve(10_000, "work");
        pull.close();
        assertThat(waiting).isCompleted();
        assertThat(waiting.join()).isEmpty();
        assertThat(pull.waiting()).isZero();
    }
}
