package dev.hourglass.node.tenant;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Blocks a client address that fails authentication too often: after {@code maxFailures} failed
 * authentications within {@code windowMs}, the address is refused for {@code blockMs}, whatever
 * token it sends (a correct guess must not get through a block). Failures of one address never
 * affect another.
 *
 * <p>Windows are fixed and per address: a window opens at the address's first failure and closes
 * {@code windowMs} later. Worked example with maxFailures 3, window 60 s, block 60 s: failures at
 * 0 s, 10 s and 20 s block the address until 80 s; a fourth request at 30 s is refused, with 50 s
 * left. Failures at 0 s, 10 s and 61 s never block: the third opened a new window.
 *
 * <p>Memory is bounded: at most {@code maxAddresses} addresses are remembered (Caffeine, least
 * useful first out), each for no longer than its window or block lasts. An attacker with more
 * addresses than that can push out a blocked one; the bound is what keeps any number of addresses
 * from growing memory. Time comes from the injected clock. Thread-safe: each address's state
 * changes atomically.
 */
public final class FailedAuthLimiter {
    private static final Logger LOG = LoggerFactory.getLogger(FailedAuthLimiter.class);

    /**
     * @param maxFailures failures within a window that block the address; 0 turns the limit off
     */
    public record Limits(int maxFailures, long windowMs, long blockMs, int maxAddresses) {}

    private record State(long windowStart, int failures, long blockedUntil) {}

    private final Limits limits;
    private final Clock clock;
    private final Cache<String, State> byAddress;

    public FailedAuthLimiter(Limits limits, Clock clock) {
        this.limits = limits;
        this.clock = clock;
        this.byAddress = Caffeine.newBuilder()
                .maximumSize(limits.maxAddresses())
                .expireAfterWrite(Duration.ofMillis(Math.max(limits.windowMs(), limits.blockMs())))
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

    /** Counts one failed authentication of the address; the one that reaches the limit blocks it. */
    public void recordFailure(String address) {
        if (limits.maxFailures() == 0) {
            return;
        }
        long now = clock.millis();
        boolean[] blockedNow = {false};
        byAddress.asMap().compute(key(address), (k, s) -> {
            if (s == null || now - s.windowStart() >= limits.windowMs()) {
                s = new State(now, 0, 0);
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
                    "{} failed authentications from {} within {} ms: refused for {} ms",
                    limits.maxFailures(),
                    key(address),
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
