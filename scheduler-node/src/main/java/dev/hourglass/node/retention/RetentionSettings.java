package dev.hourglass.node.retention;

/**
 * @param executionLogMs how long an attempt is kept after it finished; 0: for ever
 * @param backlogMs how long a final job is kept after it ended; 0: for ever
 * @param intervalMs time between the end of one run and the start of the next
 * @param batchSize most rows (backlog: jobs) per statement and transaction
 * @param batchPauseMs pause between two batches of one run
 * @param maxBatchesPerRun most batches per table in one run
 */
public record RetentionSettings(
        long executionLogMs, long backlogMs, long intervalMs, int batchSize, long batchPauseMs, int maxBatchesPerRun) {
    public static final long DAY_MS = 24L * 3600 * 1000;

    public RetentionSettings {
        if (executionLogMs < 0 || backlogMs < 0 || intervalMs <= 0 || batchSize < 1 || batchPauseMs < 0) {
            throw new IllegalArgumentException("bad retention settings");
        }
        if (maxBatchesPerRun < 1) {
            throw new IllegalArgumentException("maxBatchesPerRun must be at least 1");
        }
    }
}
