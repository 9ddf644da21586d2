package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.catalog.ServiceCatalog;
import dev.hourglass.node.core.port.Delivery;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.port.Dispatcher;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.shard.ShardOwnership;
import dev.hourglass.node.testing.ManualClock;
import dev.hourglass.node.testing.ManualScheduler;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A steady stream of jobs costs a claim transaction per group and a result write per group, not one
 * of each per job (docs/design.md, "Claim ahead, send on time"), and still fires each job at its
 * time, never early.
 *
 * <p>On fake time: the engine runs on one {@link ManualScheduler} (every role, on the test's
 * thread) whose clock is the engine's clock; the test moves it, so the groups are those of the
 * engine's timing alone, not of a slow machine.
 */
class FiringEngineBatchingTest {
    static final int JOBS = 60;
    static final long APART_MS = 5; // 200 jobs/s

    final ManualTime time = new ManualTime();
    final ManualClock clock = time.clock;
    final ManualScheduler scheduler = time.scheduler;
    final LoggedDefects defects = time.defects;
    final FakeJobStore store = new FakeJobStore();
    final List<Delivery> delivered = new CopyOnWriteArrayList<>();
    FiringEngine engine;

    @AfterEach
    void stop() {
        time.stopAndCheck(engine);
    }

    private void start(long claimLeadMs, long resultLingerMs) {
        Dispatcher dispatcher = delivery -> {
            delivered.add(delivery);
            return CompletableFuture.completedFuture(DeliveryResult.success(null));
        };
        engine = new FiringEngine(
                new FiringEngine.Ports(
                        store,
                        // no limit that would itself gather claims: a full service's jobs come back in chunks
                        new ServiceCatalog(new FixedServices(FiringEngineFenceTest.service(1_000))),
                        dispatcher,
                        new FiringListener() {}),
                new ShardOwnership(List.of(0)),
                new ClusterContext("n1", () -> Set.of("n1"), limit -> limit),
                clock,
                new EngineSettings(60_000, 50, 100, 100, 10_000, 500, 2, 500, claimLeadMs, resultLingerMs),
                EngineSchedulers.allOn(scheduler));
        engine.start();
    }

    /** {@value #JOBS} jobs due {@value #APART_MS} ms apart, the first {@code firstInMs} from now. */
    private long addStream(long firstInMs) {
        long first = clock.millis() + firstInMs;
        for (int i = 0; i < JOBS; i++) {
            store.add(i + 1, first + i * APART_MS, 0);
        }
        return first;
    }

    private void awaitAllFinishedNoneEarly() {
        assertThat(scheduler.awaitUntil(
                        () -> store.jobs.values().stream().allMatch(j -> j.state() == JobState.FINISHED), 10_000))
                .as("every job finished within 10 s of fake time")
                .isTrue();
        assertThat(delivered).hasSize(JOBS);
        for (Delivery d : delivered) {
            assertThat(d.firedAt())
                    .as("job %d never early", d.job().id())
                    .isGreaterThanOrEqualTo(d.job().fireAt());
        }
    }

    @Test
    void aSteadyStreamIsClaimedInRoundsOfHalfTheLeadNotJobByJob() {
        // the stream spans 300 ms; with a 200 ms lead a round starts every 100 ms at most (when the
        // earliest job is 100 ms away), so about 4 rounds; claimed one by one it would be 60
        addStream(1_000); // in the store before the start: loaded at once, as a submit is admitted
        start(200, 0);
        awaitAllFinishedNoneEarly();
        assertThat(store.claims.get())
                .as("claim transactions for %d jobs", JOBS)
                .isBetween(1, 12);
    }

    @Test
    void theResultsOfASteadyStreamAreWrittenInGroups() {
        // results arrive every 5 ms; each write waits 50 ms for more, so about 6 writes; written
        // as they come they would be 60
        addStream(1_000);
        start(100, 50);
        awaitAllFinishedNoneEarly();
        assertThat(store.writes.get()).as("result writes for %d jobs", JOBS).isBetween(1, 15);
    }
}
