package dev.hourglass.node.job;

/**
 * Decides what follows an attempt. SUCCESS finishes; FAIL fails for good; RETRY, TIMEOUT and ERROR
 * retry at {@code now + max(backoff, retryAfter)} while the budget lasts, and fail after. Pure: the
 * caller passes the time.
 */
public final class RetryPolicy {
    private RetryPolicy() {}

    public static NextStep next(
            AttemptBudget budget, AttemptOutcome outcome, Long retryAfterMs, Backoff backoff, long now) {
        switch (outcome) {
            case SUCCESS:
                return NextStep.finished();
            case FAIL:
                return NextStep.failed();
            default:
                if (!budget.hasAttemptsLeft()) {
                    return NextStep.failed();
                }
                long wait = backoff.delayBeforeRetry(Math.max(1, budget.spent()));
                if (retryAfterMs != null && retryAfterMs > wait) {
                    wait = retryAfterMs;
                }
                return NextStep.retryAt(Times.plus(now, wait));
        }
    }
}
