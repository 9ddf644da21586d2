package dev.hourglass.node.store.mybatis;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.DeadLetters;
import dev.hourglass.node.core.port.DuePage;
import dev.hourglass.node.core.port.PoisonResultException;
import dev.hourglass.node.core.timeindex.IndexEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * {@link AttemptStore} on MyBatis. The hot paths are batched: a claim is four set-based statements
 * for the whole batch (claim, read back, expire), and results are one
 * JDBC batch per kind of change, plus an insert of the final jobs into the backlog from the rows the
 * batch locked and one delete of them from the live table.
 *
 * <p>Lock order: every transaction here touches job rows in ascending id order (claims by an
 * ordered IN list, results sorted by id before they are written), so a claim and a result write
 * that meet on the same rows wait for each other instead of deadlocking. A deadlock that still
 * happens (InnoDB's secondary-index and insert locks follow their own order) is retried at once.
 */
public final class MyBatisAttemptStore implements AttemptStore {
    private static final String DELAYED = "DELAYED";
    private final SqlSessionFactory sessions;
    private final ClaimTokens tokens;
    private final SqlFailures failures;
    private final DeadLetterWriter deadLetters = new DeadLetterWriter();

    public MyBatisAttemptStore(SqlSessionFactory sessions, String nodeId, SqlFailures failures) {
        this.sessions = sessions;
        this.tokens = new ClaimTokens(nodeId);
        this.failures = failures;
    }

    /** Where the dead letters of the jobs this store ends are made (none until this is called). */
    public void sendDeadLettersTo(DeadLetters letters) {
        deadLetters.sendTo(letters);
    }

    @Override
    public Claim claim(Collection<Long> jobIds, String node, long now, long horizon) {
        if (jobIds.isEmpty()) {
            return new Claim(List.of(), List.of());
        }
        List<Long> ordered = jobIds.stream().sorted().toList();
        return failures.retryingDeadlocks(() -> claimOnce(ordered, node, now, horizon));
    }

    private Claim claimOnce(List<Long> jobIds, String node, long now, long horizon) {
        String token = tokens.next();
        try (SqlSession s = sessions.openSession(false)) {
            JobMapper m = s.getMapper(JobMapper.class);
            List<Job> claimed = List.of();
            List<Job> letters = List.of();
            IdList ids = IdList.of(jobIds);
            LiveCountDeltas counts = new LiveCountDeltas();
            if (m.claim(ids, node, token, now, horizon) > 0) {
                List<JobRow> rows = JobRowSelect.byToken(s, ids, token);
                claimed = rows.stream().map(JobRows::toJob).toList();
                rows.forEach(r -> counts.moved(r.app, r.service, DELAYED, r.state));
            }
            List<Long> expired = List.of();
            if (claimed.size() < jobIds.size()) {
                // only what the claim did not win can have expired (or gone elsewhere)
                Set<Long> won = new HashSet<>();
                claimed.forEach(j -> won.add(j.id()));
                List<Long> rest =
                        jobIds.stream().filter(id -> !won.contains(id)).toList();
                String expireToken = tokens.next();
                if (m.expire(IdList.of(rest), expireToken, now) > 0) {
                    List<JobRow> rows = JobRowSelect.byToken(s, IdList.of(rest), expireToken);
                    expired = rows.stream().map(r -> r.id).toList();
                    m.copyToBacklog(IdList.of(expired), expireToken, now);
                    m.deleteLive(IdList.of(expired), expireToken);
                    Map<Long, DeadLetterWriter.Ended> endedHere = new HashMap<>();
                    rows.forEach(r -> endedHere.put(
                            r.id, new DeadLetterWriter.Ended(Job.serviceKey(r.app, r.service), JobState.EXPIRED)));
                    if (deadLetters.anyRouted(endedHere)) {
                        letters = deadLetters.write(s, endedHere, now);
                    }
                    rows.forEach(r -> counts.removed(r.app, r.service, DELAYED));
                }
            }
            counts.writeTo(m);
            s.commit();
            deadLetters.stored(letters);
            return new Claim(claimed, expired);
        }
    }

    @Override
    public Set<Long> record(List<AttemptResult> results, long now) {
        if (results.isEmpty()) {
            return Set.of();
        }
        List<AttemptResult> ordered = new ArrayList<>(results);
        ordered.sort(Comparator.comparingLong(AttemptResult::jobId));
        try {
            return failures.retryingDeadlocks(() -> recordOnce(ordered, now));
        } catch (RuntimeException e) {
            if (SqlFailures.isCausedByData(e)) {
                throw new PoisonResultException("results refused by the database: " + e.getMessage(), e);
            }
            throw e;
        }
    }

    private Set<Long> recordOnce(List<AttemptResult> all, long now) {
        try (SqlSession s = sessions.openSession(ExecutorType.BATCH, false)) {
            try {
                return write(s, all, now);
            } catch (RuntimeException | Error e) {
                // the log rows and the backlog rows are written in plain JDBC: without a forced
                // rollback, the close would commit those written before the failure
                SqlFailures.rollbackQuietly(s);
                throw e;
            }
        }
    }

    /** Writes a batch of results in the session's transaction and commits it; the jobs that ended. */
    private Set<Long> write(SqlSession s, List<AttemptResult> all, long now) {
        JobMapper m = s.getMapper(JobMapper.class);
        // the jobs as the conditional updates below will find them: they are locked here, in id
        // order (results are sorted), so what applies is known before it is batched. Sent marks'
        // jobs too: a mark updates its job's row, and a row locked out of this order (at the
        // batch's flush) could deadlock with another node writing the same jobs in id order
        LiveJobs live = LiveJobs.lockWhole(
                s, all.stream().map(AttemptResult::jobId).distinct().toList());
        List<AttemptResult> results = applicable(all, live);
        Set<Long> ending = new HashSet<>();
        for (AttemptResult r : results) {
            if (!r.isSentOnly() && live.isRunning(r.jobId(), r.attempt())) {
                ending.add(r.jobId());
            }
        }
        // the send times of attempts that go on, marked in this batch: an attempt's log row written
        // here takes its mark whichever comes first in the batch
        Map<Attempt, Long> marked = new HashMap<>();
        for (AttemptResult r : results) {
            if (r.isSentOnly()) {
                marked.put(new Attempt(r.jobId(), r.attempt()), r.firedAt());
            }
        }
        // a running attempt's log row is written whole, once. A result for an attempt that is not
        // running (its job canceled while it was under way, or gone), or that a node before V14
        // claimed (no start on its row: it opened the log row then), closes the row if one is open.
        List<ExecutionLogWrite.Ended> logged = new ArrayList<>();
        List<ExecutionLogClose.Close> closes = new ArrayList<>();
        for (AttemptResult r : results) {
            if (r.isSentOnly()) {
                m.markSent(r.jobId(), r.attempt(), r.firedAt());
                m.markSentLogged(r.jobId(), r.attempt(), r.firedAt());
            } else if (live.isRunning(r.jobId(), r.attempt()) && live.lockedRow(r.jobId()).startedAt != null) {
                logged.add(ended(r, live.lockedRow(r.jobId()), marked.get(new Attempt(r.jobId(), r.attempt()))));
            } else {
                closes.add(new ExecutionLogClose.Close(
                        r.jobId(),
                        r.attempt(),
                        r.firedAt(),
                        r.finishedAt(),
                        r.outcome().name(),
                        JobRows.clip(r.message())));
            }
        }
        ExecutionLogWrite.write(s, logged);
        ExecutionLogClose.close(s, closes);
        for (AttemptResult r : results) {
            if (!r.isSentOnly() && !r.next().isFinal()) {
                live.moveRunning(r.jobId(), r.attempt(), DELAYED);
                m.retryLater(
                        r.jobId(),
                        r.attempt(),
                        r.next().retryAt(),
                        r.next().maxAttemptsAdded(),
                        r.next().budgetBaseAdded(),
                        JobRows.clip(r.message()),
                        now);
            }
        }
        Map<Long, DeadLetterWriter.Ended> endedHere = new HashMap<>();
        // the jobs that end here, in id order (as results are)
        List<BacklogRowInsert.Ending> endings = new ArrayList<>();
        for (AttemptResult r : results) {
            if (!r.isSentOnly() && r.next().isFinal() && live.isRunning(r.jobId(), r.attempt())) {
                endedHere.put(
                        r.jobId(),
                        new DeadLetterWriter.Ended(r.serviceKey(), r.next().state()));
                endings.add(new BacklogRowInsert.Ending(
                        live.lockedRow(r.jobId()), r.next().state().name(), JobRows.clip(r.message())));
                live.moveRunning(r.jobId(), r.attempt(), null); // to the backlog: gone
            }
        }
        if (!endings.isEmpty()) {
            BacklogRowInsert.insert(s, endings, now);
            m.deleteEnded(IdList.of(endedHere.keySet().stream().sorted().toList()));
        }
        live.counts().writeTo(m);
        List<Job> letters = deadLetters.anyRouted(endedHere) ? deadLetters.write(s, endedHere, now) : List.of();
        s.flushStatements();
        s.commit(true); // forced: MyBatis may know of none of the writes (plain JDBC)
        deadLetters.stored(letters);
        return ending;
    }

    /** The log row of a running attempt that ended with {@code r}, from its job's locked row. */
    private static ExecutionLogWrite.Ended ended(AttemptResult r, JobRow row, Long markedSentAt) {
        long firedAt = r.firedAt() != null ? r.firedAt() : markedSentAt != null ? markedSentAt : row.startedAt;
        return new ExecutionLogWrite.Ended(
                r.jobId(),
                r.attempt(),
                row.ownerNode == null ? "" : row.ownerNode,
                row.fireAt,
                firedAt,
                row.app,
                row.service,
                r.finishedAt(),
                r.outcome().name(),
                JobRows.clip(r.message()));
    }

    /**
     * The results that apply, in queue order (the sort by job id is stable): a sweep's result for
     * a claim that has since been given back (and maybe claimed again under the same attempt
     * number) is for nothing that exists any more; and of two results for the same attempt in one
     * batch only the first counts. The second is the timeout sweep's, queued after the sender's
     * own result (AttemptSender queues that before it clears its in-flight mark); written together,
     * the TIMEOUT's retry would be applied before the SUCCESS's end and undo it.
     */
    private static List<AttemptResult> applicable(List<AttemptResult> all, LiveJobs live) {
        Set<Attempt> decided = new HashSet<>();
        List<AttemptResult> results = new ArrayList<>();
        for (AttemptResult r : all) {
            if (r.isSentOnly()) {
                results.add(r);
            } else if (live.unchangedSince(r.jobId(), r.readVersion())
                    && decided.add(new Attempt(r.jobId(), r.attempt()))) {
                results.add(r);
            }
        }
        return results;
    }

    private record Attempt(long jobId, int number) {}

    @Override
    public void quarantine(AttemptResult result, String error, long now) {
        String message = JobRows.clip("result could not be written: " + error);
        AttemptResult failed = new AttemptResult(
                result.jobId(),
                result.attempt(),
                dev.hourglass.node.core.job.AttemptOutcome.ERROR,
                message,
                result.firedAt(),
                result.finishedAt(),
                dev.hourglass.node.core.job.NextStep.failed(),
                result.shard(),
                result.serviceKey(),
                result.readVersion());
        try {
            recordOnce(List.of(failed), now); // FAILED in the backlog, if the backlog takes it
            return;
        } catch (RuntimeException e) {
            if (!SqlFailures.isCausedByData(e)) {
                throw e;
            }
        }
        try (SqlSession s = sessions.openSession(false)) {
            JobMapper m = s.getMapper(JobMapper.class);
            LiveJobs live = LiveJobs.lock(s, List.of(result.jobId()));
            if (!live.unchangedSince(result.jobId(), result.readVersion())) {
                return; // a sweep's result for a claim that is no longer there
            }
            // the row a claim before V14 opened, else a new one (both while the attempt still runs)
            m.closeExecution(result.jobId(), result.attempt(), result.firedAt(), result.finishedAt(), "ERROR", message);
            m.writeExecutionFromLive(
                    result.jobId(), result.attempt(), result.firedAt(), result.finishedAt(), "ERROR", message);
            live.moveRunning(result.jobId(), result.attempt(), "FAILED");
            m.failInPlace(result.jobId(), result.attempt(), message, now);
            live.counts().writeTo(m);
            s.commit();
        }
    }

    @Override
    public List<IndexEntry> loadDue(DuePage page) {
        if (page.after().isEmpty() || page.limitPerShard() <= 0) {
            return List.of();
        }
        List<ShardCursor> cursors = new ArrayList<>(page.after().size());
        page.after().forEach((shard, c) -> cursors.add(new ShardCursor(shard, c.dueAt(), c.jobId())));
        cursors.sort(Comparator.comparingInt(ShardCursor::shard));
        List<ServiceName> skip =
                page.skipServices().stream().map(ServiceName::ofKey).toList();
        List<ServiceName> only =
                page.onlyServices().stream().map(ServiceName::ofKey).toList();
        try (SqlSession s = sessions.openSession(true)) {
            return DueRowSelect.loadDue(s.getConnection(), cursors, page.before(), page.limitPerShard(), skip, only);
        }
    }

    @Override
    public List<Job> findStale(Collection<Integer> shards, long now, Orphans orphans, long afterId, int limit) {
        if (shards.isEmpty()) {
            return List.of();
        }
        try (SqlSession s = sessions.openSession(true)) {
            JobMapper m = s.getMapper(JobMapper.class);
            java.util.TreeMap<Long, Job> stale = new java.util.TreeMap<>();
            m.findTimedOut(shards, now, afterId, limit).forEach(r -> stale.put(r.id, JobRows.toJob(r)));
            if (orphans != null) {
                m.findOrphaned(shards, orphans.liveNodes(), orphans.self(), orphans.selfStartedAt(), afterId, limit)
                        .forEach(r -> stale.putIfAbsent(r.id, JobRows.toJob(r)));
            }
            // the first `limit` ids of both: the next page starts after the last one returned
            return stale.values().stream().limit(limit).toList();
        }
    }

    @Override
    public void forgetUnsent(Collection<ClaimedAttempt> attempts) {
        if (attempts.isEmpty()) {
            return;
        }
        try (SqlSession s = sessions.openSession(true)) {
            JobMapper m = s.getMapper(JobMapper.class);
            for (ClaimedAttempt a : attempts) {
                m.deleteOpenExecution(a.jobId(), a.attempt());
            }
        }
    }

    /** Rows are locked in ascending job id, as by every transaction here: no deadlock among them. */
    private static List<ClaimedAttempt> inJobIdOrder(Collection<ClaimedAttempt> attempts) {
        return attempts.stream()
                .sorted(Comparator.comparingLong(ClaimedAttempt::jobId))
                .toList();
    }

    @Override
    public Set<Long> renewDeadlines(Collection<ClaimedAttempt> attempts, String node, long now) {
        if (attempts.isEmpty()) {
            return Set.of();
        }
        List<ClaimedAttempt> ordered = inJobIdOrder(attempts);
        return failures.retryingDeadlocks(() -> {
            try (SqlSession s = sessions.openSession(false)) {
                JobMapper m = s.getMapper(JobMapper.class);
                Set<Long> renewed = new HashSet<>();
                for (ClaimedAttempt a : ordered) {
                    if (m.renewDeadline(a.jobId(), a.attempt(), node, now) == 1) {
                        renewed.add(a.jobId());
                    }
                }
                s.commit(true);
                return renewed;
            }
        });
    }

    @Override
    public int unclaim(Collection<ClaimedAttempt> attempts, String node, long now) {
        if (attempts.isEmpty()) {
            return 0;
        }
        List<ClaimedAttempt> ordered = inJobIdOrder(attempts);
        return failures.retryingDeadlocks(() -> {
            try (SqlSession s = sessions.openSession(false)) {
                JobMapper m = s.getMapper(JobMapper.class);
                LiveJobs live = LiveJobs.lock(
                        s, ordered.stream().map(ClaimedAttempt::jobId).toList());
                int given = 0;
                for (ClaimedAttempt a : ordered) {
                    if (m.unclaim(a.jobId(), a.attempt(), node, now) == 1) {
                        // this node's claim: its log row is written when an attempt ends, none yet
                        live.moveRunning(a.jobId(), a.attempt(), DELAYED);
                        given++;
                    }
                }
                live.counts().writeTo(m);
                s.commit();
                return given;
            }
        });
    }
}
