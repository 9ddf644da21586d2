package dev.hourglass.node.core.port;

import java.util.Map;
import java.util.Set;

/**
 * One read of due jobs, shard by shard: for each shard, the jobs after its cursor in
 * {@code (dueAt, id)} order. Paging by the pair, not by the due time alone, is what lets a read move
 * past thousands of jobs due at the same millisecond.
 *
 * @param after per shard, the last job read (exclusive); {@link Cursor#START} for the beginning
 * @param skipServices service keys ({@code app/service}) to leave out
 * @param onlyServices when not empty, the service keys to read (and no other)
 */
public record DuePage(
        Map<Integer, Cursor> after,
        long before,
        int limitPerShard,
        Set<String> skipServices,
        Set<String> onlyServices) {

    /** A read of every service but {@code skipServices}. */
    public DuePage(Map<Integer, Cursor> after, long before, int limitPerShard, Set<String> skipServices) {
        this(after, before, limitPerShard, skipServices, Set.of());
    }

    /** A position in {@code (dueAt, jobId)} order; reads continue strictly after it. */
    public record Cursor(long dueAt, long jobId) implements Comparable<Cursor> {
        public static final Cursor START = new Cursor(Long.MIN_VALUE, Long.MIN_VALUE);

        /** The position just before a job, so that a read from here reads it again. */
        public static Cursor before(long dueAt, long jobId) {
            return jobId == Long.MIN_VALUE ? new Cursor(dueAt - 1, Long.MAX_VALUE) : new Cursor(dueAt, jobId - 1);
        }

        @Override
        public int compareTo(Cursor o) {
            int c = Long.compare(dueAt, o.dueAt);
            return c != 0 ? c : Long.compare(jobId, o.jobId);
        }
    }
}
