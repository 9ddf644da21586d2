package dev.hourglass.node.core.job;

/**
 * Decides what follows an attempt. SUCCESS finishes; FAIL fails for good; RETRY, TIMEOUT and ERROR
 * retry at {@code now + max(backoff, retryAfter)} while the budget lasts, and fail after; the backoff
 * is the job's jittered one ({@link Backoff#jitteredDelayBeforeRetry}: the configured delay plus up
 * to a fifth of it). Pure: the caller passes the time.
 *
 * <p>Two kinds of attempt are judged apart, because they say nothing about the receiver:
 *
 * <ul>
 *   <li>an ERROR that never reached the receiver (no provider, connection refused, broker
 *       unavailable before the send) does not count against {@code maxAttempts}: it is retried
 *       with the backoff of its attempt number and extends the budget by one, up to the
 *       {@link JobBounds#MAX_ATTEMPTS}-attempt ceiling, so a receiver that is down for a while gets its jobs
 *       when it is back instead of failing them all in the first seconds of the outage;
 *   <li>an attempt whose owner node left the cluster before it answered counts (the dead node may
 *       have sent it) but is retried at once: the delay was the node's, not the receiver's.
 * </ul>
 */
public final class RetryPolicy {
    private RetryPolicy() {}

    public static NextStep next(
            long jobId, AttemptBudget budget, AttemptOutcome outcome, Long retryAfterMs, Backoff backoff, long now) {
        switch (outcome) {
            case SUCCESS:
                return NextStep.finished();
            case FAIL:
                return NextStep.failed();
            default:
                if (!budget.hasAttemptsLeft()) {
                    return NextStep.failed();
                }
                long wait = backoff.jitteredDelayBeforeRetry(Math.max(1, budget.spent()), jobId);
                if (retryAfterMs != null && retryAfterMs > wait) {
                    wait = retryAfterMs;
                }
                return NextStep.retryAt(Times.plus(now, wait));
        }
    }

    /**
     * After a pull consumer's RETRY that says when ({@code retryAfterMs}): due again after exactly
     * that delay, shorter or longer than the backoff (beanstalkd's {@code release} with a delay), the
     * attempt counted. The consumer is the one that works the job; a pushed service's receiver may
     * only ask for more than the backoff ({@link #next}).
     */
    public static NextStep afterConsumerRetry(AttemptBudget budget, long retryAfterMs, long now) {
        return budget.hasAttemptsLeft() ? NextStep.retryAt(Times.plus(now, retryAfterMs)) : NextStep.failed();
    }

    /**
     * After a pull consumer's RELEASE: due again after {@code delayMs}, the attempt not spent
     * (lmstfy's {@code freeze_tries}): neither the budget left nor the next backoff step changes,
     * and {@code maxAttempts} stays what the user set. From the {@link JobBounds#MAX_ATTEMPTS}th
     * attempt in all it counts like a RETRY: a consumer releasing a job forever would otherwise
     * keep it forever.
     */
    public static NextStep afterRelease(long jobId, AttemptBudget budget, long delayMs, Backoff backoff, long now) {
        if (budget.attempts() >= JobBounds.MAX_ATTEMPTS) {
            return next(jobId, budget, AttemptOutcome.RETRY, delayMs, backoff, now);
        }
        return NextStep.retryNotSpent(Times.plus(now, delayMs));
    }

    /** After an ERROR that never reached the receiver. */
    public static NextStep nextAfterUndelivered(long jobId, AttemptBudget budget, Backoff backoff, long now) {
        if (budget.maxAttempts() >= JobBounds.MAX_ATTEMPTS) {
            return next(jobId, budget, AttemptOutcome.ERROR, null, backoff, now);
        }
        return NextStep.retryWithBudgetExtended(
                Times.plus(now, backoff.jitteredDelayBeforeRetry(Math.max(1, budget.spent()), jobId)));
    }

    /**
     * After an attempt whose owner node left the cluster without a result: the next one at once,
     * but never before the job's fire time — the lost attempt may have been claimed ahead of it.
     */
    public static NextStep nextAfterOwnerLost(AttemptBudget budget, long now, long fireAt) {
        return budget.hasAttemptsLeft() ? NextStep.retryAt(Math.max(now, fireAt)) : NextStep.failed();
    }
}
