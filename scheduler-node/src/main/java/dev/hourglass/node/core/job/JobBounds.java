package dev.hourglass.node.core.job;

import java.time.Duration;

/**
 * The fixed maxima of a job's counts and durations, one place for the API, the service catalog
 * and the dispatchers. Limits an operator may change (how far ahead a fire time may be, which also
 * bounds {@code delayMs} and {@code expireAfterMs}) are in the node's configuration instead.
 *
 * <p>Why these values: a delivery attempt that needs more than a day to answer is a stuck one
 * ({@code timeoutMs}); a thousand attempts already spans years at the backoff cap
 * ({@code maxAttempts}); a day between automatic retries is as long as a backoff usefully grows
 * ({@code backoff.maxMs}). A retry hint ({@code retryAfterMs}, {@code Retry-After}) may ask for
 * more than the backoff (it wins when longer), up to 30 days: a receiver that needs its job later
 * than that should fail it and have it retried or rescheduled by hand, not park it unseen.
 */
public final class JobBounds {
    /** Upper bound of {@code timeoutMs} (lower bound 1). */
    public static final long MAX_TIMEOUT_MS = Duration.ofHours(24).toMillis();

    /** Upper bound of {@code maxAttempts} (lower bound 1). */
    public static final int MAX_ATTEMPTS = 1_000;

    /** Upper bound of a service's {@code backoff.initialMs} and {@code backoff.maxMs}. */
    public static final long MAX_BACKOFF_MS = Duration.ofHours(24).toMillis();

    /**
     * Upper bound of a retry hint: a client's {@code retryAfterMs} above it is refused, a
     * receiver's is clamped to it (a receiver's answer is not a client's error).
     */
    public static final long MAX_RETRY_AFTER_MS = Duration.ofDays(30).toMillis();

    /** {@link #MAX_RETRY_AFTER_MS} for messages. */
    public static final String MAX_RETRY_AFTER_TEXT = "30 days";

    private JobBounds() {}
}
