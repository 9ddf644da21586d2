package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.catalog.ServiceCatalog;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.port.Dispatcher;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.shard.ShardOwnership;
import java.time.Clock;
import java.time.Duration;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The two windows in which a catch-up re-read put a job a claim had in hand back into the index,
 * and the next round claimed it again (FiringEngineBlockedClaimTest failed, rarely, through
 * either, on a busy machine): between the round's poll of the index and its mark of the jobs it
 * hands to a claimer ({@code FiringEngine.claimRound}), and between the catch-up's test of {@code
 * heldOutside} and its offer ({@code WindowLoader.catchUp}). Both now happen under {@code
 * WindowLoader.handOff}. Each test holds one thread in its window, at a call the engine makes
 * there, until the other thread has done its part (at most {@link #GATE_MS}: with the lock, the
 * other thread cannot), so the race is met every run.
 */
class FiringEngineReReadWindowTest {
    static final long STUCK = 1;
    static final long GATE_MS = 2_000;

    FiringEngine engine;
    final StuckClaimStore store = new StuckClaimStore(STUCK);

    @AfterEach
    void stop() {
        store.release();
        if (engine != null) {
            engine.stop(1_000);
        }
    }

    /** The round has polled the job (not in the index) and not yet marked it (not in a claim). */
    @Test
    void aReReadBetweenTheRoundsPollAndItsMarkOffersTheJobAgain() {
        AtomicBoolean gated = new AtomicBoolean();
        ServiceLookup services = new Lookup(new ServiceCatalog(new FixedServices(FiringEngineFaultsTest.SERVICE))) {
            @Override
            public Optional<ServiceDefinition> findByKey(String serviceKey) {
                // capacity.admit asks for the claim bound: between pollDue and sender.claiming
                if (onThread("hourglass-firing") && gated.compareAndSet(false, true)) {
                    waitFor(() -> engine.inMemory() == 1); // the catch-up put the polled job back
                }
                return super.findByKey(serviceKey);
            }
        };
        start(services);
        assertClaimedOnce();
    }

    /** The catch-up has tested the job (in the index, not in a claim) and not yet offered it. */
    @Test
    void aReReadThatTestedTheJobBeforeTheRoundsPollOffersItAfterTheMark() {
        AtomicBoolean gated = new AtomicBoolean();
        ServiceLookup services = new Lookup(new ServiceCatalog(new FixedServices(FiringEngineFaultsTest.SERVICE))) {
            @Override
            public Set<String> pulledServiceKeys() {
                Set<String> pulled = super.pulledServiceKeys();
                if (!onThread("hourglass-housekeeping")) {
                    return pulled;
                }
                // catchUp asks pulled.contains right after heldOutside.test, before index.offer
                return new AbstractSet<>() {
                    @Override
                    public boolean contains(Object key) {
                        if (gated.compareAndSet(false, true)) {
                            waitFor(() -> store.claimsOfTheStuckJob.get() >= 1); // polled, marked, in its claim
                        }
                        return pulled.contains(key);
                    }

                    @Override
                    public Iterator<String> iterator() {
                        return pulled.iterator();
                    }

                    @Override
                    public int size() {
                        return pulled.size();
                    }
                };
            }
        };
        start(services);
        assertClaimedOnce();
    }

    private void assertClaimedOnce() {
        await().atMost(Duration.ofSeconds(5)).until(() -> store.claimsOfTheStuckJob.get() >= 1);
        // a second claim comes within milliseconds of the re-read; give it 1 s
        try {
            Thread.sleep(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertThat(store.claimsOfTheStuckJob.get())
                .as("claims of the stuck job while the first one waited")
                .isEqualTo(1);
    }

    private void start(ServiceLookup services) {
        Clock clock = Clock.systemUTC();
        store.add(STUCK, clock.millis() + 300, 0);
        Dispatcher dispatcher = delivery -> CompletableFuture.completedFuture(DeliveryResult.success(null));
        int claimThreads = 4;
        engine = new FiringEngine(
                new FiringEngine.Ports(store, services, dispatcher, FiringListener.NONE),
                new ShardOwnership(List.of(0)),
                ClusterContext.alone("n1"),
                clock,
                new EngineSettings(60_000, 50, 100, 100, 1_000, 10, claimThreads, 10, 0, 0),
                EngineSchedulers.threaded(clock, claimThreads));
        engine.start();
    }

    static boolean onThread(String name) {
        return Thread.currentThread().getName().equals(name);
    }

    /** Holds this thread until the other one has done its part (or GATE_MS: the fixed engine never lets it). */
    static void waitFor(BooleanSupplier done) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GATE_MS);
        while (!done.getAsBoolean() && System.nanoTime() < until) {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Delegates every call to the catalog; the tests override one. */
    static class Lookup implements ServiceLookup {
        private final ServiceLookup delegate;

        Lookup(ServiceLookup delegate) {
            this.delegate = delegate;
        }

        @Override
        public Optional<ServiceDefinition> find(String app, String name) {
            return delegate.find(app, name);
        }

        @Override
        public Optional<ServiceDefinition> findByKey(String serviceKey) {
            return delegate.findByKey(serviceKey);
        }

        @Override
        public Set<String> pulledServiceKeys() {
            return delegate.pulledServiceKeys();
        }

        @Override
        public Set<String> pausedServiceKeys() {
            return delegate.pausedServiceKeys();
        }

        @Override
        public boolean isPulled(String serviceKey) {
            return delegate.isPulled(serviceKey);
        }

        @Override
        public boolean refresh() {
            return delegate.refresh();
        }

        @Override
        public boolean isPaused(String serviceKey) {
            return delegate.isPaused(serviceKey);
        }
    }
}
