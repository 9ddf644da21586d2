package dev.hourglass.node.core.job;

import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.Optional;

/**
 * The result of an attempt, built the same way whichever path ends it: a delivery this node made,
 * the timeout sweep, a node that left the cluster, or the consumer's report. Pure: the caller passes
 * the time.
 */
public final class AttemptEndings {
    private AttemptEndings() {}

    /** A delivery this node made ended; {@code firedAt} is when it was sent. */
    public static AttemptResult delivered(
            Job job, Optional<ServiceDefinition> service, DeliveryResult r, long firedAt, long now) {
        Backoff backoff = service.map(ServiceDefinition::backoff).orElse(Backoff.DEFAULT);
        NextStep next = r.reachedReceiver()
                ? RetryPolicy.next(job.id(), job.budget(), r.outcome(), r.retryAfterMs(), backoff, now)
                : RetryPolicy.nextAfterUndelivered(job.id(), job.budget(), backoff, now);
        return result(job, r.outcome(), r.message(), firedAt, now, next);
    }

    /** A claimed attempt this node could not send (its service could not be read). */
    public static AttemptResult notSent(Job job, String why, long now) {
        NextStep next = RetryPolicy.nextAfterUndelivered(job.id(), job.budget(), Backoff.DEFAULT, now);
        return result(job, AttemptOutcome.ERROR, why, null, now, next);
    }

    /** No result within the attempt's deadline. */
    public static AttemptResult timedOut(Job job, Backoff backoff, long now) {
        NextStep next = RetryPolicy.next(job.id(), job.budget(), AttemptOutcome.TIMEOUT, null, backoff, now);
        return result(job, AttemptOutcome.TIMEOUT, "no result within " + job.timeoutMs() + " ms", null, now, next)
                .forClaimRead(job.version());
    }

    /** A pull consumer's reservation passed its deadline without a result. */
    public static AttemptResult reservationLapsed(Job job, Backoff backoff, long now) {
        NextStep next = RetryPolicy.next(job.id(), job.budget(), AttemptOutcome.TIMEOUT, null, backoff, now);
        return result(job, AttemptOutcome.TIMEOUT, "no result by the reservation's deadline", null, now, next)
                .forClaimRead(job.version());
    }

    /** A pull consumer gave its reservation back unused (RELEASE). */
    public static AttemptResult released(Job job, long delayMs, String message, Backoff backoff, long now) {
        NextStep next = RetryPolicy.afterRelease(job.id(), job.budget(), delayMs, backoff, now);
        return result(job, AttemptOutcome.RELEASED, message, null, now, next);
    }

    /** Its owner node left the cluster (or restarted) before the attempt had a result. */
    public static AttemptResult ownerLost(Job job, long now) {
        NextStep next = RetryPolicy.nextAfterOwnerLost(job.budget(), now, job.fireAt());
        return result(
                        job,
                        AttemptOutcome.TIMEOUT,
                        "no result: node " + job.ownerNode() + " left before the attempt ended",
                        null,
                        now,
                        next)
                .forClaimRead(job.version());
    }

    /** The consumer reported the attempt's result (CONSUMER ack mode, or any asynchronous report). */
    public static AttemptResult reported(
            Job job, AttemptOutcome outcome, Long retryAfterMs, String message, Backoff backoff, long now) {
        NextStep next = RetryPolicy.next(job.id(), job.budget(), outcome, retryAfterMs, backoff, now);
        return result(job, outcome, message, null, now, next);
    }

    /** A pull consumer's RETRY with its own delay ({@link RetryPolicy#afterConsumerRetry}). */
    public static AttemptResult retriedByConsumer(Job job, long retryAfterMs, String message, long now) {
        NextStep next = RetryPolicy.afterConsumerRetry(job.budget(), retryAfterMs, now);
        return result(job, AttemptOutcome.RETRY, message, null, now, next);
    }

    private static AttemptResult result(
            Job job, AttemptOutcome outcome, String message, Long firedAt, long now, NextStep next) {
        return new AttemptResult(
                job.id(), job.attempts(), outcome, message, firedAt, now, next, job.shard(), job.serviceKey());
    }
}
