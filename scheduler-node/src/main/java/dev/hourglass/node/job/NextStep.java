package dev.hourglass.node.job;

import dev.hourglass.api.JobState;

/** What becomes of a RUNNING job once its attempt ended: FINISHED, FAILED, or DELAYED until {@code retryAt}. */
public record NextStep(JobState state, long retryAt) {
    public static NextStep finished() {
        return new NextStep(JobState.FINISHED, 0);
    }

    public static NextStep failed() {
        return new NextStep(JobState.FAILED, 0);
    }

    public static NextStep retryAt(long at) {
        return new NextStep(JobState.DELAYED, at);
    }

    public boolean isFinal() {
        return state.isFinal();
    }
}
