package dev.hourglass.node.core.job;

/**
 * Exponential backoff with a cap: the n-th retry (n >= 1) waits {@code initialMs * multiplier^(n-1)},
 * at most {@code maxMs} ({@link #delayBeforeRetry(int)}).
 *
 * <p>{@link #jitteredDelayBeforeRetry(int, long)} spreads that delay: the wait is somewhere in
 * {@code [d, d + d/5]}, where {@code d} is the delay above, so jobs that failed together — a
 * receiver that went down fails every job due at that moment — do not all come back at the same
 * millisecond when it is up again. Why upwards: the documented promise is "retried after the
 * backoff", and a client may rely on a retry never coming sooner than the configured delay; so the
 * jitter only ever lengthens it, by at most a fifth ({@code maxMs} caps {@code d}, the jittered wait
 * can reach 1.2 × {@code maxMs}). The point in the range is a hash of the job id and the retry
 * number, not a random draw: the core stays pure, and a job's retry time can still be asserted and
 * reproduced. Example: {@code initialMs} 1,000, 10,000 jobs failing at the same millisecond; their
 * first retries fall evenly over 1,000..1,200 ms later (about 50 per millisecond) instead of 10,000
 * at +1,000 ms. A receiver's retry-after hint is not this class's business: the caller waits the
 * larger of the two ({@link RetryPolicy} does).
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

    /**
     * The delay before retry {@code retryNumber} of job {@code jobId}: in {@code [d, d + d/5]} where
     * {@code d = delayBeforeRetry(retryNumber)} (the upper end rounded down), the same for the same
     * arguments, spread evenly over that range across job ids.
     */
    public long jitteredDelayBeforeRetry(int retryNumber, long jobId) {
        long full = delayBeforeRetry(retryNumber);
        long span = full / 5; // the jittered delay is full + [0, span]
        return full + Math.floorMod(mix(jobId, retryNumber), span + 1);
    }

    /** SplitMix64's finalizer over the job id and the retry number: neighbouring ids land far apart. */
    private static long mix(long jobId, int retryNumber) {
        long z = jobId * 0x9E3779B97F4A7C15L + retryNumber;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
