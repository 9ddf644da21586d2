package dev.hourglass.node.job;

/**
 * Exponential backoff with a cap: the n-th retry (n >= 1) waits {@code initialMs * multiplier^(n-1)},
 * at most {@code maxMs}. Deterministic (no jitter): the retry time of an attempt can be asserted and
 * reproduced; spreading comes from the jobs' own fire times.
 */
public record Backoff(long initialMs, double multiplier, long maxMs) {
    public static final Backoff DEFAULT = new Backoff(1_000, 2.0, 600_000);

    public Backoff {
        if (initialMs < 0 || maxMs < initialMs || multiplier < 1.0) {
            throw new IllegalArgumentException("backoff needs 0 <= initialMs <= maxMs and multiplier >= 1");
        }
    }

    public long delayBeforeRetry(int retryNumber) {
        if (retryNumber < 1) {
            throw new IllegalArgumentException("retryNumber starts at 1");
        }
        double delay = initialMs * Math.pow(multiplier, retryNumber - 1);
        return delay >= maxMs ? maxMs : (long) delay;
    }
}
