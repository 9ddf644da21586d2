package dev.hourglass.node.manage;

import dev.hourglass.api.HourglassException;
import dev.hourglass.node.core.job.JobBounds;
import dev.hourglass.node.core.job.Times;
import java.time.Instant;

/**
 * The bounds of the times, durations and counts a client gives a job (docs/api.md, "Jobs", and the
 * "Time limits" of docs/design.md): each is checked here, the same for HTTP and Dubbo, and a value
 * out of bounds is a 400 naming its field before anything is written. The bounds keep every sum of
 * a time and a duration the scheduler makes far from the edge of a long.
 */
public final class JobInputs {
    private final Limits limits;

    JobInputs(Limits limits) {
        this.limits = limits;
    }

    /**
     * An instant as epoch milliseconds; one a long cannot hold (beyond about ±292 million years,
     * e.g. {@link Instant#MAX} from a Dubbo client or {@code +999999999-12-31T23:59:59Z}) is a 400
     * naming {@code field}.
     */
    public static long epochMillis(String field, Instant time) {
        try {
            return time.toEpochMilli();
        } catch (ArithmeticException e) {
            throw HourglassException.invalid(field, field + " is out of range: " + time);
        }
    }

    /**
     * The fire time of exactly one of fireAt / delayMs when {@code required}; at most one
     * otherwise (null: unchanged). A fire time in the past fires now, however far past; one more
     * than {@link Limits#maxFireAheadMs()} ahead, or a {@code delayMs} beyond it, is refused.
     */
    Long fireTime(Instant fireAt, Long delayMs, long now, boolean required) {
        if (fireAt != null && delayMs != null) {
            throw HourglassException.invalid("fireAt", "give fireAt or delayMs, not both");
        }
        if (fireAt == null && delayMs == null) {
            if (required) {
                throw HourglassException.invalid("fireAt", "fireAt or delayMs is required");
            }
            return null;
        }
        long maxAhead = limits.maxFireAheadMs();
        if (delayMs != null) {
            if (delayMs < 0 || delayMs > maxAhead) {
                throw HourglassException.invalid("delayMs", "delayMs must be in 0.." + maxAhead);
            }
            return now + delayMs; // both bounded: cannot overflow
        }
        long at = epochMillis("fireAt", fireAt);
        if (at > Times.plus(now, maxAhead)) {
            throw HourglassException.invalid("fireAt", "the fire time is more than " + maxAhead + " ms ahead");
        }
        return Math.max(at, now); // a fire time in the past fires now
    }

    int maxAttempts(Integer given, int serviceDefault) {
        int v = given == null ? serviceDefault : given;
        if (v < 1 || v > JobBounds.MAX_ATTEMPTS) {
            throw HourglassException.invalid("maxAttempts", "maxAttempts must be in 1.." + JobBounds.MAX_ATTEMPTS);
        }
        return v;
    }

    long timeoutMs(Long given, long serviceDefault) {
        long v = given == null ? serviceDefault : given;
        if (v < 1 || v > JobBounds.MAX_TIMEOUT_MS) {
            throw HourglassException.invalid("timeoutMs", "timeoutMs must be in 1.." + JobBounds.MAX_TIMEOUT_MS);
        }
        return v;
    }

    /** At most the fire-ahead limit: a job need not stay firable longer than it may wait to fire. */
    Long expireAfterMs(Long given) {
        if (given != null && (given < 0 || given > limits.maxFireAheadMs())) {
            throw HourglassException.invalid("expireAfterMs", "expireAfterMs must be in 0.." + limits.maxFireAheadMs());
        }
        return given;
    }

    /** A consumer's retry hint in a result report: at most {@link JobBounds#MAX_RETRY_AFTER_MS}. */
    Long retryAfterMs(Long given) {
        return laterBy("retryAfterMs", given);
    }

    /** A RELEASE's {@code delayMs}: the same bounds as a retry's wait. */
    Long releaseDelayMs(Long given) {
        return laterBy("delayMs", given);
    }

    private static Long laterBy(String field, Long given) {
        if (given != null && (given < 0 || given > JobBounds.MAX_RETRY_AFTER_MS)) {
            throw HourglassException.invalid(
                    field,
                    field + " must be in 0.." + JobBounds.MAX_RETRY_AFTER_MS + " (" + JobBounds.MAX_RETRY_AFTER_TEXT
                            + ")");
        }
        return given;
    }
}
