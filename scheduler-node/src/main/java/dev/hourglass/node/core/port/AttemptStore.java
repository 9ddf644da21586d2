package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.timeindex.IndexEntry;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Storage port of the firing engine. Every state change here is conditional (state, attempt number,
 * owner), so the database, not timing, decides which node fires a job: a claim can never succeed
 * twice, and a result for a superseded attempt changes nothing.
 */
public interface AttemptStore {

    /**
     * Claims the jobs among {@code jobIds} that are DELAYED, due at or before {@code horizon} (now,
     * or a little later: see {@code claimLeadMs}) and not expired: each becomes RUNNING with
     * attempt + 1, owned by {@code node}, its deadline {@code max(fireAt, now) + timeout}, and its
     * start ({@code started_at}) planned for {@code max(fireAt, now)}, in one transaction (the
     * attempt's execution-log row is written when it ends). Due jobs past
     * their expiry become EXPIRED instead.
     */
    Claim claim(Collection<Long> jobIds, String node, long now, long horizon);

    /**
     * Applies the results of finished attempts (and sent marks), batched in one transaction. A
     * failure writes nothing; {@link PoisonResultException} says the data, not the database, failed.
     * Returns the jobs whose attempt a result ended: one missing was for an attempt that is not
     * current (any more), and changed nothing.
     */
    Set<Long> record(List<AttemptResult> results, long now);

    /**
     * Ends a result that cannot be written ({@link PoisonResultException}): the attempt's log row
     * says why, and the job is FAILED — in the backlog if it can move there, else left in the live
     * table as FAILED, where nothing fires it and an operator finds it.
     */
    void quarantine(AttemptResult result, String error, long now);

    /**
     * DELAYED jobs of each shard of {@code page} after its cursor and due before
     * {@code page.before()}, at most {@code page.limitPerShard()} per shard in {@code (dueAt, id)}
     * order, leaving out the services in {@code page.skipServices()}.
     */
    List<IndexEntry> loadDue(DuePage page);

    /**
     * RUNNING jobs of these shards that no live node will answer for: past their deadline, or —
     * when {@code orphans} is given — owned by a node not among its live nodes, or by this node
     * before it last started. At most {@code limit}, in id order, with ids above {@code afterId}.
     */
    List<Job> findStale(Collection<Integer> shards, long now, Orphans orphans, long afterId, int limit);

    /**
     * Gives back attempts this node claimed and never sent: each goes back to DELAYED, due at its
     * fire time, with its attempt number taken back (it has no execution-log row: that is written
     * when an attempt ends), so the next claim — by
     * whichever node owns the job then — makes the same attempt. Conditional on the attempt being
     * still this node's; returns how many were given back.
     */
    int unclaim(Collection<ClaimedAttempt> attempts, String node, long now);

    /**
     * Attempts this node dropped unsent because their job changed since the claim (canceled, or
     * taken over by another node): an open execution-log row of theirs (a cancel writes one for an
     * attempt it finds under way; a claim by a node before V14 opened one) is removed, so the log
     * shows no attempt that never left the node. A closed row (another node timed the attempt out)
     * stays.
     */
    void forgetUnsent(Collection<ClaimedAttempt> attempts);

    /**
     * Attempts that waited at their service's gate until little of their deadline was left: each
     * still RUNNING under {@code node} with its number gets a fresh deadline ({@code now} + its
     * timeout), which the timeout sweeps of every node then respect, so it keeps its place in the
     * gate's line instead of being given back and claimed again at the end of it. Returns the jobs
     * whose attempt was renewed; one missing was not this node's current attempt any more
     * (canceled, taken over).
     */
    Set<Long> renewDeadlines(Collection<ClaimedAttempt> attempts, String node, long now);

    record Claim(List<Job> claimed, List<Long> expired) {}

    /** Who may still answer for a RUNNING attempt: the live nodes, and this node since it started. */
    record Orphans(Set<String> liveNodes, String self, long selfStartedAt) {}

    /** An attempt a node holds: the job and the attempt number its claim made. */
    record ClaimedAttempt(long jobId, int attempt) {}
}
