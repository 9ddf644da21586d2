package dev.hourglass.node.firing;

import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.DuePage;
import dev.hourglass.node.core.timeindex.IndexEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    public Set<Long> record(List<AttemptResult> results, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void quarantine(AttemptResult result, String error, long now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<IndexEntry> loadDue(DuePage page) {
        loads++;
        List<IndexEntry> out = new ArrayList<>();
        page.after().forEach((shard, cursor) -> delayed.values().stream()
                .filter(e -> e.shard() == shard && e.dueAt() < page.before())
                .filter(e -> new DuePage.Cursor(e.dueAt(), e.jobId()).compareTo(cursor) > 0)
                .filter(e -> !page.skipServices().contains(e.serviceKey()))
                .filter(e ->
                        page.onlyServices().isEmpty() || page.onlyServices().contains(e.serviceKey()))
                .sorted(Comparator.comparingLong(IndexEntry::dueAt).thenComparingLong(IndexEntry::jobId))
                .limit(page.limitPerShard())
                .forEach(out::add));
        return out;
    }

    @Override
    public List<Job> findStale(Collection<Integer> shards, long now, Orphans orphans, long afterId, int limit) {
        return List.of();
    }

    @Override
    public int unclaim(Collection<ClaimedAttempt> attempts, String node, long now) {
        return 0;
    }

    @Override
    public void forgetUnsent(Collection<ClaimedAttempt> attempts) {
        throw new UnsupportedOperationException();
    }

    @Override
    public java.util.Set<Long> renewDeadlines(Collection<ClaimedAttempt> attempts, String node, long now) {
        throw new UnsupportedOperationException();
    }
}
