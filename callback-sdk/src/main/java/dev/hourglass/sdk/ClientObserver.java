package dev.hourglass.sdk;

import dev.hourglass.api.ErrorCode;
import java.time.Duration;

/**
 * Told of every call a {@link HourglassClient} makes, to count and time them (the Spring Boot
 * starter turns these into Micrometer meters) without the SDK depending on a metrics library.
 * Called on the thread that completes the call: keep it quick. What it throws is logged and does
 * not change the call's outcome.
 */
@FunctionalInterface
public interface ClientObserver {
    /** Observes nothing: the default. */
    ClientObserver NONE = (operation, took, sends, failure) -> {};

    /**
     * One call ended.
     *
     * @param operation what was called, one of a fixed set ({@code submit}, {@code submitBatch},
     *     {@code get}, {@code search}, {@code executions}, {@code reschedule}, {@code cancel},
     *     {@code fireNow}, {@code retry}, {@code reportResult}, {@code reserve}, {@code
     *     reportResults}, {@code touch}): safe as a metric tag
     * @param took from the first send to the answer, retries and their waits included
     * @param sends how many times it was sent: 1, or more when it was retried
     * @param failure the error it ended with, or null when it succeeded
     */
    void callEnded(String operation, Duration took, int sends, ErrorCode failure);
}
