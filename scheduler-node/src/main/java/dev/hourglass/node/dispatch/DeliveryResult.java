package dev.hourglass.node.dispatch;

import dev.hourglass.node.job.AttemptOutcome;

/** How a delivery ended, with the receiver's retry hint and message when it gave them. */
public record DeliveryResult(AttemptOutcome outcome, Long retryAfterMs, String message) {
    public static DeliveryResult success(String message) {
        return new DeliveryResult(AttemptOutcome.SUCCESS, null, message);
    }

    public static DeliveryResult error(String message) {
        return new DeliveryResult(AttemptOutcome.ERROR, null, message);
    }
}
