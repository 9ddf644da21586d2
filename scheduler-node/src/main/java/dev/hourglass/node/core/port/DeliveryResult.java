package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.JobBounds;

/**
 * How a delivery ended, with the receiver's retry hint and message when it gave them.
 *
 * @param reachedReceiver false only when the dispatcher knows the attempt never reached the
 *     receiver (no provider, connection refused, broker unavailable before the send): such an ERROR
 *     says nothing about the receiver's answer, so the retry policy does not count it against the
 *     job's {@code maxAttempts}
 */
public record DeliveryResult(AttemptOutcome outcome, Long retryAfterMs, String message, boolean reachedReceiver) {

    public DeliveryResult(AttemptOutcome outcome, Long retryAfterMs, String message) {
        this(outcome, retryAfterMs, message, true);
    }

    /**
     * A RETRY with the receiver's hint, which is an answer and not a client's input, so never
     * refused: a negative hint is ignored (the backoff applies), one over
     * {@link JobBounds#MAX_RETRY_AFTER_MS} is clamped to it and the message says so.
     *
     * @param retryAfterMs the receiver's hint in milliseconds (saturated at {@link Long#MAX_VALUE}
     *     by the caller when the receiver's number was larger), or null
     */
    public static DeliveryResult retry(Long retryAfterMs, String message) {
        if (retryAfterMs == null || retryAfterMs < 0) {
            return new DeliveryResult(AttemptOutcome.RETRY, null, message);
        }
        if (retryAfterMs <= JobBounds.MAX_RETRY_AFTER_MS) {
            return new DeliveryResult(AttemptOutcome.RETRY, retryAfterMs, message);
        }
        String note = "retry-after beyond the maximum of " + JobBounds.MAX_RETRY_AFTER_TEXT + ": retrying in "
                + JobBounds.MAX_RETRY_AFTER_TEXT;
        return new DeliveryResult(
                AttemptOutcome.RETRY,
                JobBounds.MAX_RETRY_AFTER_MS,
                message == null || message.isBlank() ? note : message + " (" + note + ")");
    }

    public static DeliveryResult success(String message) {
        return new DeliveryResult(AttemptOutcome.SUCCESS, null, message);
    }

    /** A connection or broker error after which the receiver may have seen the attempt. */
    public static DeliveryResult error(String message) {
        return new DeliveryResult(AttemptOutcome.ERROR, null, message);
    }

    /** An ERROR before anything was sent: the receiver cannot have seen this attempt. */
    public static DeliveryResult notDelivered(String message) {
        return new DeliveryResult(AttemptOutcome.ERROR, null, message, false);
    }
}
