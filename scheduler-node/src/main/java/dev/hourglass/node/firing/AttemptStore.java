package dev.hourglass.node.firing;

import dev.hourglass.node.job.Job;
import dev.hourglass.node.timeindex.IndexEntry;
import java.util.Collection;
import java.util.List;

/**
 * Storage port of the firing engine. Every state change here is conditional (state, attempt number,
 * due time), so the database, not timing, decides which node fires a job: a claim can never succeed
 * twice, and a result for a superseded attempt changes nothing.
 */
public interface AttemptStore {

    /**
     * Claims the jobs among {@code jobIds} that are DELAYED, due at or before {@code horizon} (now,
     * or a little later: see {@code claimLeadMs}) and not expired: each becomes RUNNING with
     * attempt + 1, its deadline {@code max(fireAt, now) + timeout}, and an open execution-log row
     * fired at {@code max(fireAt, now)}, in one transaction. Due jobs past their expiry become
     * EXPIRED instead.
     */
    Claim claim(Collection<Long> jobIds, String node, long now, long horizon);

    /** Applies the results of finished attempts, batched in one transaction. */
    void record(List<AttemptResult> results, long now);

    /** DELAYED jobs of these shards due in [from, to), earliest first. */
    List<IndexEntry> loadDue(Collection<Integer> shards, long from, long to, int limit);

    /** RUNNING jobs of these shards whose attempt deadline passed. */
    List<Job> findTimedOut(Collection<Integer> shards, long now, int limit);

    record Claim(List<Job> claimed, List<Long> expired) {}
}
