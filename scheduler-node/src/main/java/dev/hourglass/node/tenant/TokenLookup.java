package dev.hourglass.node.tenant;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.hourglass.node.core.port.AppRepository;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Which app a token hash belongs to, and what finding out may cost the database. Three bounded
 * caches (Caffeine, keyed by the token's hash, least useful out first) and one bounded lane:
 *
 * <ul>
 *   <li><b>trusted</b>: hashes the database said are valid, trusted for {@code validMs} without a
 *       read (the revocation delay through another node);
 *   <li><b>unknown</b>: hashes the database did not know, answered as unknown for {@code
 *       unknownMs} without a read;
 *   <li><b>seen valid</b>: every hash this node has found valid, for as long as the cache keeps it
 *       (no time limit). It grants nothing by itself: it says "this token was valid, read it
 *       again", so {@link Tenants} lets it through an address block to a database read. Only a
 *       valid token gets in, so a flood of wrong tokens can neither fill it nor push entries out;
 *       a revoked token leaves it at its next read.
 *   <li><b>the new-token lane</b>: a read for a hash that is in none of the caches, which is what
 *       every guessed token is, takes one of {@code concurrency} permits, waiting for one at most
 *       {@code maxWaitMs} in arrival order (a fair semaphore); without one in time the request is
 *       refused {@link RateLimitedException}. So guessed tokens hold at most {@code concurrency}
 *       of the API's database connections, however many arrive, and a valid new token queues
 *       behind the guesses that arrived before it, not behind all of them: its wait grows with the
 *       number of requests in flight, not with the size of the flood. Reads of seen-valid hashes
 *       skip the lane: only valid tokens lead there, at most one read per token each {@code
 *       validMs} plus the requests in flight at that moment.
 * </ul>
 *
 * <p>A read is one indexed SELECT of the token table by hash ({@link AppRepository#appOfToken}).
 * Separate caches, so that wrong tokens, which anyone can make up in any number, never push a
 * valid one out. Time for the caches comes from the injected clock; the lane's wait is a real
 * wait for a permit. Thread-safe.
 */
final class TokenLookup {
    /** The new-token lane: reads at once, and the longest wait for a permit (0: no wait). */
    record Lane(int concurrency, long maxWaitMs) {
        /** A quarter of the API's default pool of 16 connections. */
        static final Lane DEFAULT = new Lane(4, 1_000);
    }

    private final AppRepository apps;
    private final Lane lane;
    private final Semaphore permits;
    /** token hash → app */
    private final Cache<String, String> trusted;
    /** token hashes the database did not know */
    private final Cache<String, Boolean> unknown;
    /** token hash → app, for a read through a block; never trusted by itself */
    private final Cache<String, String> seenValid;

    TokenLookup(AppRepository apps, Tenants.TokenCaching caching, Lane lane, Clock clock) {
        this.apps = apps;
        this.lane = lane;
        this.permits = new Semaphore(lane.concurrency(), true);
        this.trusted = cache(caching.validMs(), caching.maxEntries(), clock);
        this.unknown = cache(caching.unknownMs(), caching.maxEntries(), clock);
        this.seenValid = Caffeine.newBuilder()
                .maximumSize(caching.maxEntries())
                .executor(Runnable::run)
                .build();
    }

    private static <V> Cache<String, V> cache(long ttlMs, int maxEntries, Clock clock) {
        return Caffeine.newBuilder()
                .maximumSize(ttlMs == 0 ? 0 : maxEntries)
                .expireAfterWrite(Duration.ofMillis(ttlMs))
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .executor(Runnable::run) // housekeeping on the caller: no pool thread, deterministic
                .build();
    }

    /** The app of a hash trusted without a read, or null. */
    String trusted(String hash) {
        return trusted.getIfPresent(hash);
    }

    /** Whether the database did not know the hash a short while ago. */
    boolean knownUnknown(String hash) {
        return unknown.getIfPresent(hash) != null;
    }

    /** Whether this node has found the hash valid (it may have been revoked since). */
    boolean seenValid(String hash) {
        return seenValid.getIfPresent(hash) != null;
    }

    /**
     * The app of an unrevoked token hash, or null, from the database: directly for a seen-valid
     * hash, through the new-token lane otherwise. Fills the caches with the answer.
     *
     * @throws RateLimitedException when the lane has no permit within its wait
     */
    String read(String hash) {
        if (seenValid(hash)) {
            return remember(hash, apps.appOfToken(hash));
        }
        acquireLane();
        try {
            return remember(hash, apps.appOfToken(hash));
        } finally {
            permits.release();
        }
    }

    private void acquireLane() {
        boolean acquired;
        try {
            acquired = permits.tryAcquire(lane.maxWaitMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            acquired = false;
        }
        if (!acquired) {
            throw new RateLimitedException("too many unknown tokens are being checked", lane.maxWaitMs());
        }
    }

    private String remember(String hash, Optional<String> app) {
        if (app.isEmpty()) {
            seenValid.invalidate(hash);
            unknown.put(hash, Boolean.TRUE);
            return null;
        }
        trusted.put(hash, app.get());
        seenValid.put(hash, app.get());
        return app.get();
    }

    /**
     * A token issued through this node: never shadowed by an earlier miss, however unlikely. One
     * issued through another node cannot be in the unknown cache: nobody could present it before
     * it existed.
     */
    void issued(String hash) {
        unknown.invalidate(hash);
    }

    /**
     * A token revoked through this node: trust nothing cached any more (keyed by hash, not id, so
     * all of it; it refills on demand). Seen-valid hashes stay: they only ever lead to a read.
     */
    void revoked() {
        trusted.invalidateAll();
    }

    /** Reads waiting for a permit of the new-token lane now (tests). */
    int waitingForLane() {
        return permits.getQueueLength();
    }
}
