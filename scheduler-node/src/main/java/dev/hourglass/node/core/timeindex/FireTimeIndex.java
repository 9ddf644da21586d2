package dev.hourglass.node.core.timeindex;

import java.util.List;
import java.util.function.IntPredicate;

/**
 * The bounded in-memory index of the jobs due within a node's load window. It never reads a clock:
 * callers pass the time, so tests move a manual clock instead of sleeping.
 *
 * <p>Bounded: at capacity, an entry due earlier than the latest one displaces that latest entry;
 * one due later is refused. Either way {@link #offer} returns what is now outside the index, so the
 * caller can lower its load watermark and read it again later. A job is in the index at most once.
 *
 * <p>Thread-safe.
 */
public interface FireTimeIndex {

    /** Adds or moves the entry of {@code entry.jobId()}; returns the entry left out by the bound, or null. */
    IndexEntry offer(IndexEntry entry);

    /** Removes the job's entry; true when it was there. */
    boolean remove(long jobId);

    /** Removes and returns, earliest first, up to {@code max} entries due at or before {@code now}. */
    List<IndexEntry> pollDue(long now, int max);

    /** The earliest due time, or {@link Long#MAX_VALUE} when empty. */
    long nextDueAt();

    /** Drops the entries of the shards that match; returns how many. */
    int removeShards(IntPredicate shards);

    boolean contains(long jobId);

    int size();

    int capacity();
}
