package dev.hourglass.node.store.mybatis;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.JobTransitions;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.core.port.JobMutations;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/** {@link JobMutations} on MyBatis: one transaction per change, conditional on the source states. */
public final class MyBatisJobMutations implements JobMutations {
    private static final List<String> CANCELABLE = names(JobState.CANCELED);
    private static final List<String> REVIVABLE = names(JobState.DELAYED).stream()
            .filter(s -> JobState.valueOf(s).isFinal())
            .toList();

    private final SqlSessionFactory sessions;
    private final ClaimTokens tokens;

    public MyBatisJobMutations(SqlSessionFactory sessions, String nodeId) {
        this.sessions = sessions;
        this.tokens = new ClaimTokens(nodeId + "-m");
    }

    private static List<String> names(JobState target) {
        return JobTransitions.sourcesOf(target).stream().map(Enum::name).toList();
    }

    @Override
    public Optional<Job> reschedule(
            long id, String app, Long fireAt, Integer shard, String payload, Map<String, String> attributes, long now) {
        try (SqlSession s = sessions.openSession(false)) {
            JobMapper m = s.getMapper(JobMapper.class);
            String attributesJson = attributes == null ? null : nullToEmptyObject(JobRows.attributesToJson(attributes));
            if (m.reschedule(id, app, fireAt, shard, payload, attributesJson, now) == 0) {
                return Optional.empty();
            }
            JobRow row = m.findLive(id);
            s.commit();
            return Optional.of(JobRows.toJob(row));
        }
    }

    private static String nullToEmptyObject(String json) {
        return json == null ? "{}" : json;
    }

    @Override
    public Optional<Job> cancel(long id, String app, LongSupplier clock, AttemptHolders holders) {
        String token = tokens.next();
        try (SqlSession s = sessions.openSession(false)) {
            JobMapper m = s.getMapper(JobMapper.class);
            IdList ids = IdList.of(List.of(id));
            // locked first: the state it leaves (DELAYED or RUNNING) is the count it leaves, and
            // the holder of a claimed attempt answers for it while nothing else can change the job
            List<LockedJobRow> before = JobRowSelect.lockLive(s, ids);
            if (before.isEmpty() || (app != null && !app.equals(before.get(0).app))) {
                return Optional.empty();
            }
            LockedJobRow job = before.get(0);
            String why = "canceled";
            if ("RUNNING".equals(job.state)) {
                AttemptHolders.Answer answer;
                try {
                    answer = holders.withhold(job.ownerNode, id, job.attempts);
                } catch (RuntimeException e) {
                    s.rollback(true);
                    throw e;
                }
                if (answer == AttemptHolders.Answer.WITHHELD) {
                    // it never left: the claim is undone (attempt number, and the log row a claim
                    // by a node before V14 opened), as by a give-back
                    m.unclaim(id, job.attempts, job.ownerNode, clock.getAsLong());
                    m.deleteOpenExecution(id, job.attempts);
                } else {
                    why = underWay(job);
                    // the attempt's log row, open: its result, if it comes, closes it (an attempt's
                    // row is otherwise written when it ends, from the live row this cancel removes)
                    m.writeExecutionFromLive(id, job.attempts, null, null, null, null);
                }
            }
            long now = clock.getAsLong();
            if (m.markFinal(id, app, CANCELABLE, JobState.CANCELED.name(), why, token, now) == 0) {
                s.rollback(true);
                return Optional.empty();
            }
            m.copyToBacklog(ids, token, now);
            m.deleteLive(ids, token);
            LiveCountDeltas counts = new LiveCountDeltas();
            counts.removed(job.app, job.service, job.state);
            counts.writeTo(m);
            JobRow row = m.findFinal(id);
            s.commit();
            return Optional.of(JobRows.toJob(row));
        }
    }

    /**
     * What the job's record says of a cancel that found its attempt sent (or sending), or held by a
     * node that could not say (an earlier life of it, or a node gone). Clocks of different nodes
     * cannot order a send and a cancel to the millisecond, so the record says what was known: the
     * attempt may still arrive, and its log row, once its node writes it, shows whether it did.
     */
    private static String underWay(LockedJobRow job) {
        return "canceled while attempt " + job.attempts + " was under way on " + job.ownerNode
                + ": it may still arrive";
    }

    @Override
    public Optional<Job> revive(long id, String app, long fireAt, int shard, long now) {
        try (SqlSession s = sessions.openSession(false)) {
            JobMapper m = s.getMapper(JobMapper.class);
            if (m.revive(id, app, REVIVABLE, fireAt, shard, now) == 0) {
                return Optional.empty();
            }
            // the copy above read the backlog without a lock: a retention batch may have deleted the
            // job (and freed its bizKey) meanwhile; then this delete finds nothing and the retry
            // must not create a live job without its key and its history
            if (m.deleteFinal(id) == 0) {
                s.rollback();
                return Optional.empty();
            }
            JobRow row = m.findLive(id);
            LiveCountDeltas counts = new LiveCountDeltas();
            counts.added(row.app, row.service, row.state);
            counts.writeTo(m);
            s.commit();
            return Optional.of(JobRows.toJob(row));
        }
    }
}
