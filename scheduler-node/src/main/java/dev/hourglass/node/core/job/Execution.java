package dev.hourglass.node.core.job;

/** One attempt of a job. {@code outcome} and {@code finishedAt} are null while it runs. */
public record Execution(
        long jobId,
        int attempt,
        String node,
        long fireAt,
        long firedAt,
        Long finishedAt,
        AttemptOutcome outcome,
        String message) {

    public long latenessMs() {
        return firedAt - fireAt;
    }
}
