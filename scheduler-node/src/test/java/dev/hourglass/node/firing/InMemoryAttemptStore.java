package dev.hourglass.node.firing;

import dev.hourglass.node.job.Job;
import dev.hourglass.node.timeindex.IndexEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A fake store for core tests: DELAYED jobs as index entries; counts the loads it serves. */
final class InMemoryAttemptStore implements AttemptStore {
    final Map<Long, IndexEntry> delayed = new ConcurrentHashMap<>();
    int loads;

    void put(long id, long due, int shard) {
        delayed.put(id, new IndexEntry(id, due, "app/svc", shard));
    }

    @Override
    public Claim claim(Collection<Long> jobIds, String node, long now, long horizon) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void record(List<AttemptResult> results, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<IndexEntry> loadDue(Collection<Integer> shards, long from, long to, int limit) {
        loads++;
        List<IndexEntry> out = new ArrayList<>();
        delayed.values().stream()
                .filter(e -> shards.contains(e.shard()) && e.dueAt() >= from && e.dueAt() < to)
                .sorted(Comparator.comparingLong(IndexEntry::dueAt).thenComparingLong(IndexEntry::jobId))
                .limit(limit)
                .forEach(out::add);
        return out;
    }

    @Override
    public List<Job> findTimedOut(Collection<Integer> shards, long now, int limit) {
        return List.of();
    }
}
