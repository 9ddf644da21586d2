package dev.hourglass.node.core.job;

/**
 * The end of one attempt and what follows it, ready to be written. {@code shard} and
 * {@code serviceKey} let a retry go back into memory without reading the job again.
 *
 * @param firedAt when the attempt was really sent (written to its execution-log row), or null when
 *     this node does not know (a timeout found by the sweep, a result reported by the consumer)
 * @param next what follows; null for a {@linkplain #sentOnly sent mark}: a CONSUMER-mode attempt
 *     was delivered and waits for its consumer, only its send time is written
 */
public record AttemptResult(
        long jobId,
        int attempt,
        AttemptOutcome outcome,
        String message,
        Long firedAt,
        long finishedAt,
        NextStep next,
        int shard,
        String serviceKey,
        Integer readVersion) {

    /**
     * A result for whatever claim holds the attempt number when it is written ({@code readVersion}
     * null). A result decided from a read of the job (the timeout sweep's) carries the version it
     * read instead, and changes nothing if the job changed since: an attempt given back and claimed
     * again has the same number, and the sweep's TIMEOUT for the first claim must not end the
     * second (it did, under a broker outage: the second claim's record was published after its
     * attempt had been recorded as timed out).
     */
    public AttemptResult(
            long jobId,
            int attempt,
            AttemptOutcome outcome,
            String message,
            Long firedAt,
            long finishedAt,
            NextStep next,
            int shard,
            String serviceKey) {
        this(jobId, attempt, outcome, message, firedAt, finishedAt, next, shard, serviceKey, null);
    }

    /** This result, for the claim a read of the job found (its row's version then). */
    public AttemptResult forClaimRead(int version) {
        return new AttemptResult(
                jobId, attempt, outcome, message, firedAt, finishedAt, next, shard, serviceKey, version);
    }

    public static AttemptResult sentOnly(long jobId, int attempt, long firedAt, int shard, String serviceKey) {
        return new AttemptResult(jobId, attempt, null, null, firedAt, firedAt, null, shard, serviceKey);
    }

    /** True for a sent mark: the attempt goes on, nothing about the job changes. */
    public boolean isSentOnly() {
        return next == null;
    }
}
