package dev.hourglass.node.store.mybatis;

import dev.hourglass.api.JobState;
import dev.hourglass.node.job.Job;
import dev.hourglass.node.job.JobMutations;
import dev.hourglass.node.job.JobTransitions;
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
    public Optional<Job> cancel(long id, String app, LongSupplier clock) {
        String token = tokens.next();
        try (SqlSession s = sessions.openSession(false)) {
            JobMapper m = s.getMapper(JobMapper.class);
            IdList ids = IdList.of(List.of(id));
            // locked first: the state it leaves (DELAYED or RUNNING) is the count it leaves
            List<LockedJobRow> before = m.lockLive(ids);
            long now = clock.getAsLong();
            if (before.isEmpty()
                    || m.markFinal(
                                    id,
                                    app,
                                    CANCELABLE,
                                    JobState.CANCELED.name(),
                                    whyCanceled(before.get(0)),
                                    token,
                                    now)
                            == 0) {
                return Optional.empty();
            }
            m.copyToBacklog(ids, token, now);
            m.deleteLive(ids, token);
            LiveCountDeltas counts = new LiveCountDeltas();
            counts.removed(before.get(0).app, before.get(0).service, before.get(0).state);
            counts.writeTo(m);
            JobRow row = m.findFinal(id);
            s.commit();
            return Optional.of(JobRows.toJob(row));
        }
    }

    /**
     * What the job's record says of its cancel. Clocks of different nodes cannot order a send and a
     * cancel to the millisecond, so the record says what the database knew: an attempt under way
     * (claimed, possibly sent already) may still arrive, and its log row, once its node writes it,
     * shows whether it did.
     */
    private static String whyCanceled(LockedJobRow job) {
        return "RUNNING".equals(job.state)
                ? "canceled while attempt " + job.attempts + " was under way on " + job.ownerNode
                        + ": it may still arrive"
                : "canceled";
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
