package dev.hourglass.node.firing;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.DuePage;
import dev.hourglass.node.core.port.PoisonResultException;
import dev.hourglass.node.core.timeindex.IndexEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store of whole jobs with the port's semantics (conditional claims, results, give-backs), for
 * engine tests that inject faults ({@link #refuseWrites}, {@link #poison}, {@link #duringClaim}),
 * and every operation can be observed. Nothing in it blocks or waits: an engine test runs every
 * task on its own thread, on a manual clock.
 */
class FakeJobStore implements AttemptStore {
    final Map<Long, Job> jobs = new ConcurrentHashMap<>();
    final List<AttemptResult> results = new CopyOnWriteArrayList<>();
    final List<AttemptResult> quarantined = new CopyOnWriteArrayList<>();
    final List<ClaimedAttempt> givenBack = new CopyOnWriteArrayList<>();
    /** Attempts dropped unsent as no longer this node's (a renewal found it so): their log rows removed. */
    final List<ClaimedAttempt> forgotten = new CopyOnWriteArrayList<>();
    /** Attempts whose deadline was renewed at their gate. */
    final List<ClaimedAttempt> renewals = new CopyOnWriteArrayList<>();

    /**
     * The store calls made on the send path — the sender's timer and gate, the fence's give-backs
     * and renewals: every engine task runs on the test's thread, so the path is told by the stack
     * (a frame of {@link AttemptSender} or {@link SendFence}), where a threaded engine told it by
     * the thread's name ({@code hourglass-send-*}).
     */
    final List<String> sendPathCalls = new CopyOnWriteArrayList<>();

    private static final StackWalker STACK = StackWalker.getInstance();

    private void called(String operation) {
        boolean onSendPath =
                STACK.walk(frames -> frames.anyMatch(f -> f.getClassName().startsWith(AttemptSender.class.getName())
                        || f.getClassName().startsWith(SendFence.class.getName())));
        if (onSendPath) {
            sendPathCalls.add(operation);
        }
    }
    /** How many reads of due jobs (loader, catch-up) covered each shard. */
    final Map<Integer, AtomicInteger> reads = new ConcurrentHashMap<>();
    /**
     * Runs inside every claim, after the rows are claimed: a freeze of the node mid-claim, a cancel
     * that locks the row as the claim commits, a slow claim (it moves the manual clock).
     */
    volatile Runnable duringClaim = () -> {};

    final AtomicInteger claims = new AtomicInteger();
    /** Calls of {@link #record}: result writes (each one transaction in a database). */
    final AtomicInteger writes = new AtomicInteger();
    /** Results are refused as a read-only database refuses them (not bad data: retried). */
    volatile boolean refuseWrites;
    /** Results of these jobs are refused as bad data (a poison row). */
    final java.util.Set<Long> poison = ConcurrentHashMap.newKeySet();

    void add(long id, long fireAt, int shard) {
        jobs.put(id, job(id, JobState.DELAYED, fireAt, fireAt, 0, 5, null, 5_000, shard));
    }

    static Job job(
            long id,
            JobState state,
            long fireAt,
            long dueAt,
            int attempts,
            int maxAttempts,
            String owner,
            long timeoutMs,
            int shard) {
        return new Job(
                id,
                "app",
                "svc",
                null,
                shard,
                state,
                fireAt,
                dueAt,
                null,
                attempts,
                0,
                maxAttempts,
                timeoutMs,
                null,
                "{}",
                Map.of(),
                null,
                owner,
                0,
                fireAt,
                fireAt);
    }

    private static Job with(
            Job j, JobState state, long fireAt, long dueAt, int attempts, int maxAttempts, String owner, long now) {
        return new Job(
                j.id(),
                j.app(),
                j.service(),
                j.bizKey(),
                j.shard(),
                state,
                fireAt,
                dueAt,
                j.expireAt(),
                attempts,
                j.budgetBase(),
                maxAttempts,
                j.timeoutMs(),
                j.expireAfterMs(),
                j.payload(),
                j.attributes(),
                j.lastError(),
                owner,
                j.version() + 1,
                j.createdAt(),
                now);
    }

    /**
     * A cancel of a RUNNING job through any node, as the database runs it: the job locked (this
     * store's monitor; the engine's give-back of a withheld attempt is a fence task, planned by the
     * withholding and run after the cancel returns, as it would wait for the row lock), its holder asked
     * to withhold the attempt, then the job gone — or, with {@code commit} false, left as it was (a
     * cancel rolled back after the answer: its asker stopped waiting, its database failed).
     */
    synchronized AttemptHolders.Answer cancelRunning(long id, AttemptHolders holders, boolean commit) {
        Job j = jobs.get(id);
        AttemptHolders.Answer answer = holders.withhold(j.ownerNode(), id, j.attempts());
        if (commit) {
            jobs.remove(id);
        }
        return answer;
    }

    @Override
    public synchronized Claim claim(Collection<Long> ids, String node, long now, long horizon) {
        called("claim");
        claims.incrementAndGet();
        List<Job> claimed = new ArrayList<>();
        for (long id : ids) {
            Job j = jobs.get(id);
            if (j != null && j.state() == JobState.DELAYED && j.dueAt() <= horizon) {
                Job running = with(
                        j,
                        JobState.RUNNING,
                        j.fireAt(),
                        Math.max(j.fireAt(), now) + j.timeoutMs(),
                        j.attempts() + 1,
                        j.maxAttempts(),
                        node,
                        now);
                jobs.put(id, running);
                claimed.add(running);
            }
        }
        duringClaim.run();
        return new Claim(claimed, List.of());
    }

    @Override
    public synchronized Set<Long> record(List<AttemptResult> written, long now) {
        called("record");
        writes.incrementAndGet();
        if (refuseWrites) {
            throw new dev.hourglass.node.core.port.StoreUnavailableException("the database is read-only", null);
        }
        for (AttemptResult r : written) {
            if (poison.contains(r.jobId())) {
                throw new PoisonResultException("job " + r.jobId() + " refused", null);
            }
        }
        Set<Long> ended = new java.util.HashSet<>();
        for (AttemptResult r : written) {
            results.add(r);
            Job j = jobs.get(r.jobId());
            if (r.isSentOnly() || j == null || j.state() != JobState.RUNNING || j.attempts() != r.attempt()) {
                continue;
            }
            ended.add(r.jobId());
            if (r.next().isFinal()) {
                jobs.put(
                        r.jobId(),
                        with(
                                j,
                                r.next().state(),
                                j.fireAt(),
                                j.dueAt(),
                                j.attempts(),
                                j.maxAttempts(),
                                j.ownerNode(),
                                now));
            } else {
                jobs.put(
                        r.jobId(),
                        with(
                                        j,
                                        JobState.DELAYED,
                                        r.next().retryAt(),
                                        r.next().retryAt(),
                                        j.attempts(),
                                        j.maxAttempts() + r.next().maxAttemptsAdded(),
                                        j.ownerNode(),
                                        now)
                                .toBuilder()
                                .budgetBase(j.budgetBase() + r.next().budgetBaseAdded())
                                .build());
            }
        }
        return ended;
    }

    @Override
    public synchronized void quarantine(AttemptResult result, String error, long now) {
        called("quarantine");
        quarantined.add(result);
        Job j = jobs.get(result.jobId());
        if (j != null && j.attempts() == result.attempt()) {
            jobs.put(
                    result.jobId(),
                    with(j, JobState.FAILED, j.fireAt(), j.dueAt(), j.attempts(), j.maxAttempts(), j.ownerNode(), now));
        }
    }

    @Override
    public List<IndexEntry> loadDue(DuePage page) {
        called("loadDue");
        List<IndexEntry> out = new ArrayList<>();
        page.after().keySet().forEach(shard -> reads.computeIfAbsent(shard, k -> new AtomicInteger())
                .incrementAndGet());
        page.after().forEach((shard, cursor) -> jobs.values().stream()
                .filter(j -> j.shard() == shard && j.state() == JobState.DELAYED && j.dueAt() < page.before())
                .filter(j -> new DuePage.Cursor(j.dueAt(), j.id()).compareTo(cursor) > 0)
                .filter(j -> !page.skipServices().contains(j.serviceKey()))
                .filter(j ->
                        page.onlyServices().isEmpty() || page.onlyServices().contains(j.serviceKey()))
                .sorted(Comparator.comparingLong(Job::dueAt).thenComparingLong(Job::id))
                .limit(page.limitPerShard())
                .forEach(j -> out.add(new IndexEntry(j.id(), j.dueAt(), j.serviceKey(), j.shard()))));
        return out;
    }

    @Override
    public List<Job> findStale(Collection<Integer> shards, long now, Orphans orphans, long afterId, int limit) {
        called("findStale");
        return jobs.values().stream()
                .filter(j -> shards.contains(j.shard()) && j.state() == JobState.RUNNING && j.id() > afterId)
                .sorted(Comparator.comparingLong(Job::id))
                .filter(j -> j.dueAt() <= now
                        || (orphans != null && !orphans.liveNodes().contains(j.ownerNode())))
                .limit(limit)
                .toList();
    }

    @Override
    public void forgetUnsent(Collection<ClaimedAttempt> attempts) {
        called("forgetUnsent");
        forgotten.addAll(attempts);
    }

    @Override
    public synchronized java.util.Set<Long> renewDeadlines(Collection<ClaimedAttempt> attempts, String node, long now) {
        called("renewDeadlines");
        java.util.Set<Long> renewed = new java.util.HashSet<>();
        for (ClaimedAttempt a : attempts) {
            Job j = jobs.get(a.jobId());
            if (j != null
                    && j.state() == JobState.RUNNING
                    && j.attempts() == a.attempt()
                    && node.equals(j.ownerNode())) {
                long deadline = now + j.timeoutMs();
                jobs.put(
                        a.jobId(),
                        with(j, JobState.RUNNING, j.fireAt(), deadline, j.attempts(), j.maxAttempts(), node, now));
                renewed.add(a.jobId());
                renewals.add(a);
            }
        }
        return renewed;
    }

    @Override
    public synchronized int unclaim(Collection<ClaimedAttempt> attempts, String node, long now) {
        called("unclaim");
        int n = 0;
        for (ClaimedAttempt a : attempts) {
            Job j = jobs.get(a.jobId());
            if (j != null
                    && j.state() == JobState.RUNNING
                    && j.attempts() == a.attempt()
                    && node.equals(j.ownerNode())) {
                jobs.put(
                        a.jobId(),
                        with(
                                j,
                                JobState.DELAYED,
                                j.fireAt(),
                                j.fireAt(),
                                j.attempts() - 1,
                                j.maxAttempts(),
                                j.ownerNode(),
                                now));
                givenBack.add(a);
                n++;
            }
        }
        return n;
    }
}
