package dev.hourglass.node.core.job;

/**
 * Arithmetic on epoch-millisecond times that cannot wrap around. A plain {@code time + duration}
 * past {@link Long#MAX_VALUE} wraps to a time 292 million years in the past, which the scheduler
 * takes for "due now": a job meant to wait forever would fire at once. Saturating instead keeps
 * "later" later.
 *
 * <p>Inputs are bounded where they enter (the API refuses, receivers' answers are clamped: see
 * {@link JobBounds}), so with today's limits no sum comes near the edge; this is what keeps a
 * missed bound from turning into an early fire. Pure and stateless.
 */
public final class Times {
    private Times() {}

    /**
     * {@code epochMs + durationMs}, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} where the
     * exact sum does not fit a long. Example: {@code plus(now, Long.MAX_VALUE) == Long.MAX_VALUE}.
     */
    public static long plus(long epochMs, long durationMs) {
        long sum = epochMs + durationMs;
        // the sum overflowed iff both operands have the same sign and the sum's sign differs
        if (((epochMs ^ sum) & (durationMs ^ sum)) < 0) {
            return durationMs > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return sum;
    }
}
