package dev.hourglass.sdk;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import io.github.resilience4j.core.functions.Either;
import io.github.resilience4j.retry.RetryConfig;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When {@link HourglassClient} sends a call again, and after how long. A call is sent again only
 * when that cannot do it twice (docs/api.md, "Errors"):
 *
 * <ul>
 *   <li>the node refused it before doing anything: {@code RATE_LIMITED} (429) and {@code
 *       UNAVAILABLE} (503, the database unreachable: nothing was stored or changed), after the
 *       node's {@code Retry-After} when it gave one;
 *   <li>it never left: the connection was refused or could not be made in time;
 *   <li>its outcome is unknown (no answer in time, the connection lost, or {@code INTERNAL}) and
 *       sending it again is harmless: a read, or a submit whose jobs all carry a bizKey (the node
 *       answers a repeat with the job it stored the first time).
 * </ul>
 *
 * Between tries it waits the node's {@code Retry-After}, else an exponential backoff with jitter.
 * A {@code Retry-After} longer than {@code maxRetryAfter} is not waited for: the call fails with
 * it, and the caller can see it in {@link HourglassException#retryAfterMs()}.
 *
 * @param maxAttempts tries in all, the first included (1: no retry)
 * @param initialBackoff the wait after the first failure; doubled after each further one
 * @param maxBackoff the longest backoff
 * @param maxRetryAfter the longest {@code Retry-After} waited for
 */
record RetryRule(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxRetryAfter) {
    RetryRule {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0 || maxRetryAfter.isNegative()) {
            throw new IllegalArgumentException(
                    "backoffs must satisfy 0 <= initialBackoff <= maxBackoff, maxRetryAfter >= 0");
        }
    }

    static final RetryRule DEFAULT =
            new RetryRule(3, Duration.ofMillis(200), Duration.ofSeconds(5), Duration.ofSeconds(30));

    /** The resilience4j configuration for calls that may ({@code repeatable}) or may not be sent twice. */
    <T> RetryConfig config(boolean repeatable) {
        return RetryConfig.<T>custom()
                .maxAttempts(maxAttempts)
                .retryOnException(t -> retries(unwrap(t), repeatable))
                .intervalBiFunction((Integer failures, Either<Throwable, T> outcome) ->
                        waitMs(failures, outcome.isLeft() ? unwrap(outcome.getLeft()) : null))
                .build();
    }

    boolean retries(Throwable failure, boolean repeatable) {
        if (!(failure instanceof HourglassException h)) {
            return false;
        }
        if (h.retryAfterMs() != null && h.retryAfterMs() > maxRetryAfter.toMillis()) {
            return false;
        }
        if (h.getCause() != null) { // no answer from the node
            return repeatable || neverSent(h.getCause());
        }
        return switch (h.code()) {
            case RATE_LIMITED, UNAVAILABLE -> true;
            case INTERNAL -> repeatable;
            default -> false;
        };
    }

    long waitMs(int failures, Throwable failure) {
        if (failure instanceof HourglassException h && h.retryAfterMs() != null) {
            return h.retryAfterMs();
        }
        long ceiling =
                Math.min(maxBackoff.toMillis(), initialBackoff.toMillis() << Math.min(20, Math.max(0, failures - 1)));
        // jitter: many clients refused at once must not all come back at the same instant
        return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
    }

    /** A connection refused or not made in time: the request never reached the node. */
    private static boolean neverSent(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) {
                return true;
            }
        }
        return false;
    }

    static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** Whether a failure is one of reaching the node (so another of its addresses may answer). */
    static boolean isTransportOrUnavailable(Throwable t) {
        return t instanceof HourglassException h && (h.getCause() != null || h.code() == ErrorCode.UNAVAILABLE);
    }
}
