package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.ReservationStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * {@link ReservationStore} on MyBatis. A reserve reads a page of each service's ready ids (on the
 * live table's index by service), then takes them with one conditional update in id order, like a
 * claim: a consumer that read the same ids through another node and took them first leaves this
 * one the rest, and the reserve reads again (at most {@value #ROUNDS} times per service) for what
 * it still wants. Statements per reserve: one read and one transaction of three statements (take,
 * read back, open the log rows) per service that has ready jobs, plus the expiry of any found past
 * it.
 */
public final class MyBatisReservationStore implements ReservationStore {
    private static final String DELAYED = "DELAYED";
    /** Reads per service and reserve when other consumers keep taking what was read. */
    private static final int ROUNDS = 3;

    private final SqlSessionFactory sessions;
    private final ClaimTokens tokens;
    private final SqlFailures failures;

    public MyBatisReservationStore(SqlSessionFactory sessions, String nodeId, SqlFailures failures) {
        this.sessions = sessions;
        this.tokens = new ClaimTokens(nodeId);
        this.failures = failures;
    }

    @Override
    public List<Job> reserve(String app, List<String> services, int max, long ttrMs, String node, long now) {
        List<Job> reserved = new ArrayList<>();
        for (String service : services) {
            for (int round = 0; round < ROUNDS && reserved.size() < max; round++) {
                int wanted = max - reserved.size();
                List<Long> ready;
                try (SqlSession s = sessions.openSession(true)) {
                    ready = s.getMapper(ReservationMapper.class).readyIds(app, service, now, wanted);
                }
                if (ready.isEmpty()) {
                    break;
                }
                List<Long> ordered = ready.stream().sorted().toList(); // the lock order of every claim
                List<Job> taken = new ArrayList<>(failures.retryingDeadlocks(() -> take(ordered, ttrMs, node, now)));
                taken.sort(Comparator.comparingLong(Job::fireAt).thenComparingLong(Job::id)); // oldest first
                reserved.addAll(taken);
                if (ready.size() < wanted) {
                    break; // the page held every ready job of the service
                }
            }
            if (reserved.size() >= max) {
                break;
            }
        }
        return reserved;
    }

    /** One transaction: takes what is still ready of {@code ids}; expires what is past its expiry. */
    private List<Job> take(List<Long> ids, long ttrMs, String node, long now) {
        String token = tokens.next();
        try (SqlSession s = sessions.openSession(false)) {
            ReservationMapper r = s.getMapper(ReservationMapper.class);
            JobMapper m = s.getMapper(JobMapper.class);
            IdList idList = IdList.of(ids);
            LiveCountDeltas counts = new LiveCountDeltas();
            List<Job> taken = List.of();
            if (r.reserve(idList, node, token, now, ttrMs) > 0) {
                List<JobRow> rows = m.findByToken(idList, token);
                r.openReservations(idList, token, node, now);
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
