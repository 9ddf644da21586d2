package dev.hourglass.sdk.pull;

import dev.hourglass.api.Reservation;

/**
 * Runs one reserved job for a {@link PullConsumer}. Called on one of the consumer's worker threads,
 * one job per call; the consumer keeps the reservation alive while the call runs (it touches it
 * every half TTR), so a call may take longer than the TTR.
 *
 * <p>The returned {@link PullResult} is the job's result; a thrown exception answers RETRY with
 * the exception's text as the message, and so does a null result. The job may be handed out again
 * after its reservation was lost (docs/api.md, "Pull consumers"): handle it idempotently.
 */
@FunctionalInterface
public interface PullHandler {
    PullResult handle(Reservation job) throws Exception;
}
