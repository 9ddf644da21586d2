package dev.hourglass.sdk.pull;

import dev.hourglass.api.CallbackStatus;
import java.util.Objects;

/**
 * What a {@link PullHandler} says of one reservation: SUCCESS, RETRY (optionally after exactly
 * {@code retryAfterMs}), FAIL (no more attempts), or RELEASE (back to the queue after {@code delayMs}
 * without using an attempt: for a job this consumer cannot run now). Immutable.
 */
public final class PullResult {
    private static final PullResult SUCCESS = new PullResult(CallbackStatus.SUCCESS, null, null, null);

    private final CallbackStatus status;
    private final String message;
    private final Long retryAfterMs;
    private final Long delayMs;

    private PullResult(CallbackStatus status, String message, Long retryAfterMs, Long delayMs) {
        this.status = status;
        this.message = message;
        this.retryAfterMs = retryAfterMs;
        this.delayMs = delayMs;
    }

    public static PullResult success() {
        return SUCCESS;
    }

    public static PullResult retry(String message) {
        return new PullResult(CallbackStatus.RETRY, message, null, null);
    }

    /**
     * RETRY, the job due again after exactly {@code retryAfterMs}, shorter or longer than the
     * service's backoff (beanstalkd's release with a delay); the attempt counts.
     */
    public static PullResult retryAfter(long retryAfterMs, String message) {
        return new PullResult(CallbackStatus.RETRY, message, retryAfterMs, null);
    }

    public static PullResult fail(String message) {
        return new PullResult(CallbackStatus.FAIL, message, null, null);
    }

    /** Back to the queue after {@code delayMs} (0: at once) without using one of the job's attempts. */
    public static PullResult release(long delayMs) {
        return new PullResult(CallbackStatus.RELEASE, null, null, delayMs > 0 ? delayMs : null);
    }

    public CallbackStatus status() {
        return status;
    }

    public String message() {
        return message;
    }

    public Long retryAfterMs() {
        return retryAfterMs;
    }

    public Long delayMs() {
        return delayMs;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PullResult r
                && status == r.status
                && Objects.equals(message, r.message)
                && Objects.equals(retryAfterMs, r.retryAfterMs)
                && Objects.equals(delayMs, r.delayMs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, message, retryAfterMs, delayMs);
    }

    @Override
    public String toString() {
        return "PullResult{" + status + ", message=" + message + ", retryAfterMs=" + retryAfterMs + ", delayMs="
                + delayMs + '}';
    }
}
