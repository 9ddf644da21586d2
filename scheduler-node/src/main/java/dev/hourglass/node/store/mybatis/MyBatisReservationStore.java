package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.ReservationStore;
import dev.hourglass.node.core.service.PullLimits;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * {@link ReservationStore} on MyBatis. A reserve takes each service in one transaction: it locks
 * the service's row, so the reserves of one service, through any nodes, follow each other; counts
 * the service's open reservations against its {@code maxInFlight}; reads the oldest ready ids (on
 * {@code idx_task_ready}) and takes them with one conditional update in id order, like a claim.
 * Under the lock no other reserve takes what was read, so a reserve reads once; the update stays
 * conditional for what else may change a job (a cancel, a reschedule, the engine). Statements per
 * service with ready jobs: lock, count, read, take, read back, open the log rows, plus the expiry
 * of any found past it.
 */
public final class MyBatisReservationStore implements ReservationStore {
    private static final String DELAYED = "DELAYED";

    private final SqlSessionFactory sessions;
    private final ClaimTokens tokens;
    private final SqlFailures failures;

    public MyBatisReservationStore(SqlSessionFactory sessions, String nodeId, SqlFailures failures) {
        this.sessions = sessions;
        this.tokens = new ClaimTokens(nodeId);
        this.failures = failures;
    }

    @Override
    public List<Job> reserve(String app, List<String> services, int max, Long ttrMs, String node, long now) {
        List<Job> reserved = new ArrayList<>();
        for (String service : services) {
            int wanted = max - reserved.size();
            if (wanted <= 0) {
                break;
            }
            List<Job> taken =
                    new ArrayList<>(failures.retryingDeadlocks(() -> take(app, service, wanted, ttrMs, node, now)));
            taken.sort(Comparator.comparingLong(Job::fireAt).thenComparingLong(Job::id)); // oldest first
            reserved.addAll(taken);
        }
        return reserved;
    }

    /** One transaction: takes up to {@code wanted} of what is ready; expires what is past its expiry. */
    private List<Job> take(String app, String service, int wanted, Long ttrMs, String node, long now) {
        try (SqlSession s = sessions.openSession(false)) {
            ReservationMapper r = s.getMapper(ReservationMapper.class);
            JobMapper m = s.getMapper(JobMapper.class);
            Integer maxInFlight = r.lockService(app, service);
            if (maxInFlight == null) {
                return List.of(); // not a PULL service (any more)
            }
            long room = maxInFlight - r.openReservations(app, service);
            if (room <= 0) {
                return List.of();
            }
            List<Long> ready = r.readyIds(app, service, now, (int) Math.min(wanted, room));
            if (ready.isEmpty()) {
                return List.of();
            }
            List<Long> ids = ready.stream().sorted().toList(); // the lock order of every claim
            String token = tokens.next();
            IdList idList = IdList.of(ids);
            LiveCountDeltas counts = new LiveCountDeltas();
            List<Job> taken = List.of();
            if (r.reserve(idList, node, token, now, ttrMs, PullLimits.MIN_TTR_MS, PullLimits.MAX_TTR_MS) > 0) {
                List<JobRow> rows = m.findByToken(idList, token);
                r.openLogRows(idList, token, node, now);
                taken = rows.stream().map(JobRows::toJob).toList();
                rows.forEach(row -> counts.moved(row.app, row.service, DELAYED, row.state));
            }
            if (taken.size() < ids.size()) {
                Set<Long> won = new HashSet<>();
                taken.forEach(j -> won.add(j.id()));
                List<Long> rest = ids.stream().filter(id -> !won.contains(id)).toList();
                String expireToken = tokens.next();
                if (m.expire(IdList.of(rest), expireToken, now) > 0) {
                    List<JobRow> rows = m.findByToken(IdList.of(rest), expireToken);
                    List<Long> expired = rows.stream().map(row -> row.id).toList();
                    m.copyToBacklog(IdList.of(expired), expireToken, now);
                    m.deleteLive(IdList.of(expired), expireToken);
                    rows.forEach(row -> counts.removed(row.app, row.service, DELAYED));
                }
            }
            counts.writeTo(m);
            s.commit();
            return taken;
        }
    }

    @Override
    public Map<String, Long> nextDue(Collection<String> serviceKeys) {
        if (serviceKeys.isEmpty()) {
            return Map.of();
        }
        List<ServiceName> names = serviceKeys.stream().map(ServiceName::ofKey).toList();
        Map<String, Long> next = new HashMap<>();
        try (SqlSession s = sessions.openSession(true)) {
            for (NextDueRow row : s.getMapper(ReservationMapper.class).nextDue(names)) {
                if (row.dueAt != null) {
                    next.put(Job.serviceKey(row.app, row.service), row.dueAt);
                }
            }
        }
        return next;
    }

    @Override
    public Map<String, Backlog> backlogs(Collection<String> serviceKeys, long now) {
        if (serviceKeys.isEmpty()) {
            return Map.of();
        }
        List<ServiceName> names = serviceKeys.stream().map(ServiceName::ofKey).toList();
        Map<String, Backlog> out = new HashMap<>();
        try (SqlSession s = sessions.openSession(true)) {
            for (BacklogRow row : s.getMapper(ReservationMapper.class).backlogs(names, now)) {
                out.put(
                        Job.serviceKey(row.app, row.service),
                        new Backlog(row.ready, row.reserved, row.oldestReadyDueAt));
            }
        }
        return out;
    }

    @Override
    public Optional<Long> touch(long jobId, int attempt, long ttrMs, long maxLifeMs, long now) {
        try (SqlSession s = sessions.openSession(false)) {
            ReservationMapper r = s.getMapper(ReservationMapper.class);
            if (r.touch(jobId, attempt, ttrMs, maxLifeMs, now) == 0) {
                return Optional.empty();
            }
            Long deadline = r.deadline(jobId, attempt);
            s.commit();
            return Optional.ofNullable(deadline);
        }
    }

    @Override
    public QueueView queue(String app, String service, int peek, long now) {
        try (SqlSession s = sessions.openSession(true)) {
            ReservationMapper r = s.getMapper(ReservationMapper.class);
            QueueRow q = r.queue(app, service, now);
            List<Job> next = peek <= 0
                    ? List.of()
                    : r.peek(app, service, now, peek).stream()
                            .map(JobRows::toJob)
                            .toList();
            return new QueueView(q.ready, q.reserved, q.notDue, q.oldestReadyDueAt, next);
        }
    }
}
