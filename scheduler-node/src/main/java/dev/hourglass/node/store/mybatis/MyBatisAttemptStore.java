package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.firing.AttemptResult;
import dev.hourglass.node.firing.AttemptStore;
import dev.hourglass.node.job.Job;
import dev.hourglass.node.timeindex.IndexEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * {@link AttemptStore} on MyBatis. The hot paths are batched: a claim is four set-based statements
 * for the whole batch (claim, read back, open the execution-log rows, expire), and results are one
 * JDBC batch per kind of change plus two set-based statements that move final jobs to the backlog.
 */
public final class MyBatisAttemptStore implements AttemptStore {
    private final SqlSessionFactory sessions;
    private final ClaimTokens tokens;

    public MyBatisAttemptStore(SqlSessionFactory sessions, String nodeId) {
        this.sessions = sessions;
        this.tokens = new ClaimTokens(nodeId);
    }

    @Override
    public Claim claim(Collection<Long> jobIds, String node, long now, long horizon) {
        if (jobIds.isEmpty()) {
            return new Claim(List.of(), List.of());
        }
        String token = tokens.next();
        try (SqlSession s = sessions.openSession(false)) {
            JobMapper m = s.getMapper(JobMapper.class);
            List<Job> claimed = List.of();
            IdList ids = IdList.of(jobIds);
            if (m.claim(ids, node, token, now, horizon) > 0) {
                List<JobRow> rows = m.findByToken(ids, token);
                m.openExecutions(ids, token, node, now);
                claimed = rows.stream().map(JobRows::toJob).toList();
            }
            List<Long> expired = List.of();
            if (claimed.size() < jobIds.size()) {
                // only what the claim did not win can have expired (or gone elsewhere)
                java.util.Set<Long> won = new java.util.HashSet<>();
                claimed.forEach(j -> won.add(j.id()));
                List<Long> rest =
                        jobIds.stream().filter(id -> !won.contains(id)).toList();
                String expireToken = tokens.next();
                if (m.expire(IdList.of(rest), expireToken, now) > 0) {
                    expired = m.findByToken(IdList.of(rest), expireToken).stream()
                            .map(r -> r.id)
                            .toList();
                    m.copyToBacklog(IdList.of(expired), expireToken, now);
                    m.deleteLive(IdList.of(expired), expireToken);
                }
            }
            s.commit();
            return new Claim(claimed, expired);
        }
    }

    @Override
    public void record(List<AttemptResult> results, long now) {
        if (results.isEmpty()) {
            return;
        }
        try (SqlSession s = sessions.openSession(ExecutorType.BATCH, false)) {
            JobMapper m = s.getMapper(JobMapper.class);
            for (AttemptResult r : results) {
                m.closeExecution(
                        r.jobId(), r.attempt(), r.finishedAt(), r.outcome().name(), JobRows.clip(r.message()));
            }
            List<Long> ended = new ArrayList<>();
            String token = tokens.next();
            for (AttemptResult r : results) {
                if (!r.next().isFinal()) {
                    m.retryLater(r.jobId(), r.attempt(), r.next().retryAt(), JobRows.clip(r.message()), now);
                }
            }
            for (AttemptResult r : results) {
                if (r.next().isFinal()) {
                    m.endAttempt(
                            r.jobId(), r.attempt(), r.next().state().name(), JobRows.clip(r.message()), token, now);
                    ended.add(r.jobId());
                }
            }
            if (!ended.isEmpty()) {
                m.copyToBacklog(IdList.of(ended), token, now);
                m.deleteLive(IdList.of(ended), token);
            }
            s.flushStatements();
            s.commit();
        }
    }

    @Override
    public List<IndexEntry> loadDue(Collection<Integer> shards, long from, long to, int limit) {
        if (shards.isEmpty() || limit <= 0) {
            return List.of();
        }
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(JobMapper.class).loadDue(shards, from, to, limit).stream()
                    .map(r -> new IndexEntry(r.id, r.dueAt, Job.serviceKey(r.app, r.service), r.shard))
                    .toList();
        }
    }

    @Override
    public List<Job> findTimedOut(Collection<Integer> shards, long now, int limit) {
        if (shards.isEmpty()) {
            return List.of();
        }
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(JobMapper.class).findTimedOut(shards, now, limit).stream()
                    .map(JobRows::toJob)
                    .toList();
        }
    }
}
