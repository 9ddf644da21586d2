package dev.hourglass.node.dispatch;

import dev.hourglass.node.job.AttemptOutcome;

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
