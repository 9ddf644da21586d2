package dev.hourglass.node.tenant;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;

/**
 * RATE_LIMITED with the time after which the caller may try again (HTTP sends it as
 * {@code Retry-After}). Node-side only: the Dubbo front door hands callers a plain
 * {@link HourglassException} with the same code and message, since they do not have this class.
 */
public final class RateLimitedException extends HourglassException {
    private static final long serialVersionUID = 1L;

    /** The message says the reason and when to try again. */
    public RateLimitedException(String reason, long retryAfterMs) {
        super(
                ErrorCode.RATE_LIMITED,
                reason + "; try again in " + seconds(retryAfterMs) + " s",
                null,
                retryAfterMs,
                null);
    }

    /** Whole seconds, rounded up, as {@code Retry-After} wants them. */
    public long retryAfterSeconds() {
        return seconds(retryAfterMs());
    }

    private static long seconds(long ms) {
        return Math.max(1, (ms + 999) / 1000);
    }
}
