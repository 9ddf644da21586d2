package dev.hourglass.node.core.job;

import dev.hourglass.api.JobState;

/**
 * What becomes of a RUNNING job once its attempt ended: FINISHED, FAILED, or DELAYED until
 * {@code retryAt}.
 *
 * @param extendsBudget the attempt did not count: the job's {@code maxAttempts} grows by one, so its
 *     attempt numbers (and its backoff) keep rising while its budget of counted attempts is untouched
 */
public record NextStep(JobState state, long retryAt, boolean extendsBudget) {
    /** What an attempt's end writes is a change the state table allows from RUNNING. */
    public NextStep {
        JobTransitions.check(JobState.RUNNING, state);
    }

    public static NextStep finished() {
        return new NextStep(JobState.FINISHED, 0, false);
    }

    public static NextStep failed() {
        return new NextStep(JobState.FAILED, 0, false);
    }

    public static NextStep retryAt(long at) {
        return new NextStep(JobState.DELAYED, at, false);
    }

    /** A retry of an attempt that does not count against the budget (see {@link RetryPolicy}). */
    public static NextStep retryUncounted(long at) {
        return new NextStep(JobState.DELAYED, at, true);
    }

    public boolean isFinal() {
        return state.isFinal();
    }
}
