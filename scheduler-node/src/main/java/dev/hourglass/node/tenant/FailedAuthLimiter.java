package dev.hourglass.node.tenant;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Blocks a client address that presents too many wrong tokens: after {@code maxFailures} distinct
 * wrong tokens within {@code windowMs}, the address is blocked for {@code blockMs}. What a block
 * refuses is {@link Tenants}'s decision: only tokens the node cannot vouch for without a database
 * read, so that a valid client sharing the address (a NAT, a gateway, a sidecar) is still served.
 * Failures of one address never affect another.
 *
 * <p>A token counts once: the same wrong token repeated from an address is one failure per window,
 * since it guesses nothing new and its repeats are answered from the unknown-token cache without a
 * database read. So a client stuck on a revoked token does not get its address blocked; a client
 * trying new tokens does.
 *
 * <p>Windows are fixed and per address: a window opens at the address's first failure and closes
 * {@code windowMs} later. Worked example with maxFailures 3, window 60 s, block 60 s: wrong tokens
 * A at 0 s, B at 10 s, A again at 15 s (not counted) and C at 20 s block the address until 80 s;
 * at 30 s it has 50 s left. Failures at 0 s, 10 s and 61 s never block: the third opened a new
 * window. Failures during a block are not counted (they neither extend it nor count towards the
 * next one); the count starts afresh when the block ends.
 *
 * <p>Memory is bounded: at most {@code maxAddresses} addresses, and as many (address, token)
 * pairs, are remembered (Caffeine, least useful first out), each for no longer than its window or
 * block lasts. An attacker with more addresses than that can push out a blocked one; a pair pushed
 * out only makes a repeated token count again. Time comes from the injected clock. Thread-safe:
 * each address's state changes atomically.
 */
public final class FailedAuthLimiter {
    private static final Logger LOG = LoggerFactory.getLogger(FailedAuthLimiter.class);

    /**
     * @param maxFailures distinct wrong tokens within a window that block the address; 0 turns the limit off
     */
    public record Limits(int maxFailures, long windowMs, long blockMs, int maxAddresses) {}

    private record State(long windowStart, int failures, long blockedUntil) {}

    private final Limits limits;
    private final Clock clock;
    private final Cache<String, State> byAddress;
    /** "address token-hash" → the start of the address's window in which the token was counted */
    private final Cache<String, Long> counted;

    public FailedAuthLimiter(Limits limits, Clock clock) {
        this.limits = limits;
        this.clock = clock;
        this.byAddress = cache(limits.maxAddresses(), Math.max(limits.windowMs(), limits.blockMs()), clock);
        this.counted = cache(limits.maxAddresses(), limits.windowMs(), clock);
    }

    private static <V> Cache<String, V> cache(int maxEntries, long ttlMs, Clock clock) {
        return Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .expireAfterWrite(Duration.ofMillis(ttlMs))
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .executor(Runnable::run) // housekeeping on the caller: no pool thread, deterministic
                .build();
    }

    /** How long the address stays blocked, in ms; 0 when it is not blocked. */
    public long blockedForMs(String address) {
        if (limits.maxFailures() == 0) {
            return 0;
        }
        State s = byAddress.getIfPresent(key(address));
        long left = s == null ? 0 : s.blockedUntil() - clock.millis();
        return Math.max(0, left);
    }

    /** Counts one failed authentication of the address, every call a different token. */
    public void recordFailure(String address) {
        recordFailure(address, null);
    }

    /**
     * Counts a wrong token (by its hash) presented from the address, unless that token was counted
     * for the address in the current window already; the failure that reaches the limit blocks the
     * address. A null hash counts every time.
     */
    public void recordFailure(String address, String tokenHash) {
        if (limits.maxFailures() == 0) {
            return;
        }
        long now = clock.millis();
        String address0 = key(address);
        boolean[] blockedNow = {false};
        byAddress.asMap().compute(address0, (k, s) -> {
            if (s != null && now < s.blockedUntil()) {
                return s; // blocked: not counted
            }
            if (s == null || now - s.windowStart() >= limits.windowMs()) {
                s = new State(now, 0, 0);
            }
            if (tokenHash != null) {
                String pair = address0 + ' ' + tokenHash;
                Long countedIn = counted.getIfPresent(pair);
                if (countedIn != null && countedIn == s.windowStart()) {
                    return s; // this token counted in this window already
                }
                counted.put(pair, s.windowStart());
            }
            int failures = s.failures() + 1;
            if (failures < limits.maxFailures()) {
                return new State(s.windowStart(), failures, s.blockedUntil());
            }
            blockedNow[0] = true;
            long until = now + limits.blockMs();
            return new State(until, 0, until); // the count starts afresh when the block ends
        });
        if (blockedNow[0]) {
            LOG.warn(
                    "{} wrong tokens from {} within {} ms: tokens this node cannot vouch for are refused from"
                            + " there for {} ms",
                    limits.maxFailures(),
                    address0,
                    limits.windowMs(),
                    limits.blockMs());
        }
    }

    /** How many addresses are remembered now (tests, metrics). */
    public long trackedAddresses() {
        byAddress.cleanUp();
        return byAddress.estimatedSize();
    }

    private static String key(String address) {
        return address == null || address.isBlank() ? "unknown" : address;
    }
}
