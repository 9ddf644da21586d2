package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.api.JobState;
import dev.hourglass.node.catalog.ServiceCatalog;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.port.Dispatcher;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.shard.ShardOwnership;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A claim that waits in the database (on a row another transaction holds locked: in PartitionIT,
 * one of a node cut off the database, until the link heals) holds one claimer, and only that one.
 * The catch-up sweeps re-read the job, still DELAYED while that claim waits; offered again, it went
 * into the next claim, which waited on the first one's locks, until every claimer waited and the
 * node fired nothing. On the engine's real threads, with a store whose claim of one job blocks.
 */
class FiringEngineBlockedClaimTest {
    static final long STUCK = 1;

    FiringEngine engine;
    final StuckClaimStore store = new StuckClaimStore(STUCK);

    @AfterEach
    void stop() {
        store.release();
        if (engine != null) {
            engine.stop(1_000);
        }
    }

    @Test
    void aClaimWaitingOnALockedRowHoldsOneClaimerAndTheJobIsNotClaimedAgainMeanwhile() {
        Clock clock = Clock.systemUTC();
        long now = clock.millis();
        store.add(STUCK, now + 100, 0);
        for (long id = 2; id <= 21; id++) {
            store.add(id, now + 300 + 100 * id, 0); // due over the next 2.4 s, after the stuck one
        }
        Set<Long> delivered = ConcurrentHashMap.newKeySet();
        Dispatcher dispatcher = delivery -> {
            delivered.add(delivery.job().id());
            return CompletableFuture.completedFuture(DeliveryResult.success(null));
        };
        int claimThreads = 4;
        engine = new FiringEngine(
                new FiringEngine.Ports(
                        store,
                        new ServiceCatalog(new FixedServices(FiringEngineFaultsTest.SERVICE)),
                        dispatcher,
                        FiringListener.NONE),
                new ShardOwnership(List.of(0)),
                ClusterContext.alone("n1"),
                clock,
                // catch-up every 100 ms: many re-reads while the first claim waits
                new EngineSettings(60_000, 50, 100, 100, 1_000, 10, claimThreads, 10, 0, 0),
                EngineSchedulers.threaded(clock, claimThreads));
        engine.start();

        await("the jobs due after the stuck one fire while its claim waits")
                .atMost(Duration.ofSeconds(15))
                .until(() -> delivered.containsAll(
                        java.util.stream.LongStream.rangeClosed(2, 21).boxed().toList()));
        assertThat(store.claimsOfTheStuckJob.get())
                .as("claims of the stuck job while the first one waited (every re-read made one more)")
                .isEqualTo(1);
        assertThat(delivered).doesNotContain(STUCK);

        store.release();
        await("the stuck job fires once its row is free")
                .atMost(Duration.ofSeconds(10))
                .until(() -> store.jobs.get(STUCK).state() == JobState.FINISHED);
    }
}
