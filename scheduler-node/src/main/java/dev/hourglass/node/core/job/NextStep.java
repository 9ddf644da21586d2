package dev.hourglass.node.core.job;

import dev.hourglass.api.JobState;

/**
 * What becomes of a RUNNING job once its attempt ended: FINISHED, FAILED, or DELAYED until
 * {@code retryAt}.
 *
 * @param uncounted whether the attempt counts against the job's budget, and if not, how it is left
 *     out of it
 */
public record NextStep(JobState state, long retryAt, Uncounted uncounted) {
    /** How an attempt is kept out of the budget of counted attempts ({@link RetryPolicy}). */
    public enum Uncounted {
        /** It counts. */
        NO,
        /**
         * The job's {@code maxAttempts} grows by one: the budget left is untouched, but the attempt
         * numbers, and with them the backoff, keep rising (an ERROR that never reached the receiver:
         * a receiver that is down is tried ever more slowly, not at the first step's pace).
         */
        BUDGET_EXTENDED,
        /**
         * The job's {@code budgetBase} grows by one: for its budget and its backoff the attempt was
         * never made, and {@code maxAttempts} stays what the user set (a pull consumer's RELEASE).
         */
        NOT_SPENT
    }

    /** What an attempt's end writes is a change the state table allows from RUNNING. */
    public NextStep {
        JobTransitions.check(JobState.RUNNING, state);
    }

    public static NextStep finished() {
        return new NextStep(JobState.FINISHED, 0, Uncounted.NO);
    }

    public static NextStep failed() {
        return new NextStep(JobState.FAILED, 0, Uncounted.NO);
    }

    public static NextStep retryAt(long at) {
        return new NextStep(JobState.DELAYED, at, Uncounted.NO);
    }

    /** A retry after an attempt that extends the budget by one ({@link Uncounted#BUDGET_EXTENDED}). */
    public static NextStep retryWithBudgetExtended(long at) {
        return new NextStep(JobState.DELAYED, at, Uncounted.BUDGET_EXTENDED);
    }

    /** A retry after an attempt that is not spent ({@link Uncounted#NOT_SPENT}). */
    public static NextStep retryNotSpent(long at) {
        return new NextStep(JobState.DELAYED, at, Uncounted.NOT_SPENT);
    }

    /** By how much the job's {@code maxAttempts} grows. */
    public int maxAttemptsAdded() {
        return uncounted == Uncounted.BUDGET_EXTENDED ? 1 : 0;
    }

    /** By how much the job's {@code budgetBase} grows. */
    public int budgetBaseAdded() {
        return uncounted == Uncounted.NOT_SPENT ? 1 : 0;
    }

    public boolean isFinal() {
        return state.isFinal();
    }
}
