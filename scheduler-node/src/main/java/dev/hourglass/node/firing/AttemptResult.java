package dev.hourglass.node.firing;

import dev.hourglass.node.job.AttemptOutcome;
import dev.hourglass.node.job.NextStep;

/**
 * The end of one attempt and what follows it, ready to be written. {@code shard} and
 * {@code serviceKey} let a retry go back into memory without reading the job again.
 */
public record AttemptResult(
        long jobId,
        int attempt,
        AttemptOutcome outcome,
        String message,
        long finishedAt,
        NextStep next,
        int shard,
        String serviceKey) {}
