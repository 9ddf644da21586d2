package dev.hourglass.node.core.port;

/**
 * What retention needs from storage: two deletions, each one short transaction of at most
 * {@code limit} rows found through an index, oldest first. Both are idempotent and safe to run
 * concurrently with everything else (and with each other on two nodes: what one deletes, the
 * other no longer finds).
 */
public interface RetentionStore {
    /**
     * Deletes up to {@code limit} execution-log rows that finished before {@code cutoff}, whatever
     * their job's state. A row with no finish time (an attempt under way) is never deleted here.
     *
     * @return rows deleted; fewer than {@code limit} means none older is left
     */
    int deleteExecutionsFinishedBefore(long cutoff, int limit);

    /**
     * Deletes up to {@code limit} final jobs that ended before {@code cutoff}, each in the same
     * transaction as its execution-log rows and its bizKey registration, so a deleted job leaves
     * nothing behind and its bizKey becomes free. A job moved back to the live table meanwhile (a
     * manual retry) is not touched.
     */
    Purged deleteFinalJobsEndedBefore(long cutoff, int limit);

    /** What one backlog batch deleted: jobs, and their execution-log rows and bizKeys. */
    record Purged(int jobs, int executions, int bizKeys) {
        public static final Purged NOTHING = new Purged(0, 0, 0);
    }
}
