package dev.hourglass.sdk.pull;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import java.util.concurrent.CompletionException;

/** The one rule of the pull consumer for what a failed call means. */
final class Failures {
    private Failures() {}

    /** The error of an async call of the client; anything that is not a HourglassException is UNAVAILABLE. */
    static HourglassException unwrap(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause instanceof HourglassException h
                ? h
                : new HourglassException(ErrorCode.UNAVAILABLE, String.valueOf(cause));
    }

    /**
     * Worth sending again: the node was not reached, was busy or failed inside. A result or touch is
     * conditional on its attempt, so sending it twice can at worst be refused with CONFLICT.
     */
    static boolean isTransient(ErrorCode code) {
        return code == ErrorCode.UNAVAILABLE || code == ErrorCode.INTERNAL || code == ErrorCode.RATE_LIMITED;
    }

    /** The node no longer holds the attempt for this consumer: its deadline passed, or the job is gone. */
    static boolean meansLost(ErrorCode code) {
        return code == ErrorCode.CONFLICT || code == ErrorCode.NOT_FOUND;
    }
}
