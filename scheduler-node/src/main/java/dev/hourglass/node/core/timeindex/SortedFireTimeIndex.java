package dev.hourglass.node.core.timeindex;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * A {@link FireTimeIndex} on a red-black tree ordered by (dueAt, jobId) plus a hash map from job id
 * to its key.
 *
 * <p>Why not {@link java.util.concurrent.DelayQueue} (the seed design's choice): its heap removes an
 * arbitrary job in O(n), and cancel, reschedule and shard hand-off remove arbitrary jobs; and a
 * bounded window must evict its <em>latest</em> job when an earlier one arrives, which a heap cannot
 * find. Why not a timing wheel: O(1) insert, but its tick is a floor on precision and its buckets
 * must still be scanned for eviction. The tree does offer, remove, evict-latest and poll-earliest in
 * O(log n); {@code FireTimeIndexBenchmark} (benchmark module) measures it against DelayQueue.
 *
 * <p>Example: capacity 2 holding {a@100, b@300}. offer(c@200) evicts b (returned, so the loader
 * lowers its watermark to 300 and reads b again later) and holds {a@100, c@200}; pollDue(150, 10)
 * returns [a]; nextDueAt() is then 200.
 *
 * <p>Thread-safety: every method holds the object's monitor briefly; none blocks or calls out while
 * holding it. {@code onEarlierHead} runs after the lock is released.
 */
public final class SortedFireTimeIndex implements FireTimeIndex {
    private record Key(long dueAt, long jobId) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int c = Long.compare(dueAt, o.dueAt);
            return c != 0 ? c : Long.compare(jobId, o.jobId);
        }
    }

    private final int capacity;
    private final Runnable onEarlierHead;
    private final TreeMap<Key, IndexEntry> byDue = new TreeMap<>();
    private final Map<Long, Key> byJob = new HashMap<>();

    /**
     * @param onEarlierHead called whenever an offer makes the earliest due time earlier, so a waiting
     *     firing thread can shorten its wait
     */
    public SortedFireTimeIndex(int capacity, Runnable onEarlierHead) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive");
        }
        this.capacity = capacity;
        this.onEarlierHead = onEarlierHead;
    }

    public SortedFireTimeIndex(int capacity) {
        this(capacity, () -> {});
    }

    @Override
    public IndexEntry offer(IndexEntry entry) {
        IndexEntry displaced = null;
        boolean newHead;
        synchronized (this) {
            Key old = byJob.remove(entry.jobId());
            if (old != null) {
                byDue.remove(old);
            }
            Key key = new Key(entry.dueAt(), entry.jobId());
            if (byDue.size() >= capacity) {
                Key last = byDue.lastKey();
                if (key.compareTo(last) > 0) {
                    return entry;
                }
                displaced = byDue.remove(last);
                byJob.remove(last.jobId());
            }
            byDue.put(key, entry);
            byJob.put(entry.jobId(), key);
            newHead = byDue.firstKey() == key;
        }
        if (newHead) {
            onEarlierHead.run();
        }
        return displaced;
    }

    @Override
    public synchronized boolean remove(long jobId) {
        Key key = byJob.remove(jobId);
        if (key == null) {
            return false;
        }
        byDue.remove(key);
        return true;
    }

    @Override
    public synchronized List<IndexEntry> pollDue(long now, int max) {
        List<IndexEntry> due = new ArrayList<>(Math.min(max, byDue.size()));
        while (due.size() < max && !byDue.isEmpty() && byDue.firstKey().dueAt() <= now) {
            Map.Entry<Key, IndexEntry> first = byDue.pollFirstEntry();
            byJob.remove(first.getKey().jobId());
            due.add(first.getValue());
        }
        return due;
    }

    @Override
    public synchronized long nextDueAt() {
        return byDue.isEmpty() ? Long.MAX_VALUE : byDue.firstKey().dueAt();
    }

    @Override
    public synchronized int removeShards(IntPredicate shards) {
        int removed = 0;
        for (Iterator<Map.Entry<Key, IndexEntry>> it = byDue.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Key, IndexEntry> e = it.next();
            if (shards.test(e.getValue().shard())) {
                it.remove();
                byJob.remove(e.getKey().jobId());
                removed++;
            }
        }
        return removed;
    }

    @Override
    public synchronized boolean contains(long jobId) {
        return byJob.containsKey(jobId);
    }

    @Override
    public synchronized int size() {
        return byDue.size();
    }

    @Override
    public int capacity() {
        return capacity;
    }
}
