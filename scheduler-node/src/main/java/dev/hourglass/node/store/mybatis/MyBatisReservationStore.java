package dev.hourglass.node.store.mybatis;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.DeadLetters;
import dev.hourglass.node.core.port.ReservationStore;
import dev.hourglass.node.core.service.PullLimits;
import dev.hourglass.node.core.service.TokenBucket;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * {@link ReservationStore} on MyBatis. A reserve takes each service in one transaction: it locks
 * the service's row, so the reserves of one service, through any nodes, follow each other; counts
 * the service's open reservations against its {@code maxInFlight}; reads the oldest ready ids (on
 * {@code idx_task_ready}) and takes them with one conditional update in id order, like a claim.
 * Under the lock no other reserve takes what was read, so a reserve reads once; the update stays
 * conditional for what else may change a job (a cancel, a reschedule, the engine). Statements per
 * service with ready jobs: lock, count, read, take, read back, plus the expiry of any found past
 * it. The take writes when each job is handed out ({@code started_at}); the attempt's log row is
 * written when it ends.
 */
public final class MyBatisReservationStore implements ReservationStore {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MyBatisReservationStore.class);
    private static final String DELAYED = "DELAYED";
    /** Pages of expired jobs one reserve expires at most before it answers with what it has. */
    private static final int EXPIRY_ROUNDS = 10;
    /** Read beyond what is wanted, so a few expired jobs in the way cost no second read. */
    private static final int EXPIRED_SLACK = 16;

    private final SqlSessionFactory sessions;
    private final DeadLetterWriter deadLetters = new DeadLetterWriter();
    private final ClaimTokens tokens;
    private final SqlFailures failures;

    public MyBatisReservationStore(SqlSessionFactory sessions, String nodeId, SqlFailures failures) {
        this.sessions = sessions;
        this.tokens = new ClaimTokens(nodeId);
        this.failures = failures;
    }

    @Override
    public List<HeldJob> reserve(String app, List<String> services, int max, Long ttrMs, String node, long now) {
        List<HeldJob> reserved = new ArrayList<>();
        for (String service : services) {
            int wanted = max - reserved.size();
            if (wanted <= 0) {
                break;
            }
            List<HeldJob> taken;
            try {
                taken = new ArrayList<>(
                        failures.retryingDeadlocks(() -> take(app, service, wanted, ttrMs, node, now, now, 0))
                                .jobs());
            } catch (RuntimeException e) {
                if (reserved.isEmpty()) {
                    throw e;
                }
                // the earlier services' jobs are reserved (committed): hand them out rather than
                // leave them to their TTR behind an error
                LOG.warn(
                        "reserving from {}/{} failed; answering with the {} jobs already reserved: {}",
                        app,
                        service,
                        reserved.size(),
                        e.toString());
                break;
            }
            taken.sort(Comparator.comparingLong((HeldJob h) -> h.job().fireAt())
                    .thenComparingLong(h -> h.job().id())); // oldest first
            reserved.addAll(taken);
        }
        return reserved;
    }

    @Override
    public Ahead reserveAhead(
            String app, String service, int max, Long ttrMs, String node, long now, long horizon, long holdMs) {
        Ahead ahead = failures.retryingDeadlocks(() -> take(app, service, max, ttrMs, node, now, horizon, holdMs));
        List<HeldJob> taken = new ArrayList<>(ahead.jobs());
        taken.sort(Comparator.comparingLong(HeldJob::dueAt)
                .thenComparingLong(h -> h.job().id()));
        return new Ahead(taken, ahead.tookAllDue());
    }

    @Override
    public int giveBack(Collection<HeldJob> held, String node, long now) {
        if (held.isEmpty()) {
            return 0;
        }
        List<HeldJob> ordered = held.stream()
                .sorted(Comparator.comparingLong(h -> h.job().id()))
                .toList();
        return failures.retryingDeadlocks(() -> {
            try (SqlSession s = sessions.openSession(false)) {
                JobMapper m = s.getMapper(JobMapper.class);
                ReservationMapper r = s.getMapper(ReservationMapper.class);
                LiveJobs live =
                        LiveJobs.lock(s, ordered.stream().map(h -> h.job().id()).toList());
                int given = 0;
                for (HeldJob h : ordered) {
                    Job job = h.job();
                    if (r.unreserve(job.id(), job.attempts(), h.dueAt(), node, now) == 1) {
                        // never handed out: no log row (it is written when an attempt ends)
                        live.moveRunning(job.id(), job.attempts(), DELAYED);
                        given++;
                    }
                }
                live.counts().writeTo(m);
                s.commit();
                return given;
            }
        });
    }

    /**
     * One transaction: takes up to {@code wanted} of what is due by {@code horizon}; expires what is
     * past its expiry. Whether it took all that is due by then: its last read found fewer rows than
     * it asked for, and it took every one of them that had not expired.
     */
    private Ahead take(
            String app, String service, int wanted, Long ttrMs, String node, long now, long horizon, long holdMs) {
        try (SqlSession s = sessions.openSession(false)) {
            ReservationMapper r = s.getMapper(ReservationMapper.class);
            JobMapper m = s.getMapper(JobMapper.class);
            ServiceLockRow locked = r.lockService(app, service);
            if (locked == null || locked.pausedAt != null) {
                return new Ahead(List.of(), false); // not a PULL service (any more), or paused: nothing starts
            }
            int wantedHere = (int) Math.max(0, Math.min(wanted, locked.maxInFlight - r.openReservations(app, service)));
            // the rate limit, exact across the cluster: the bucket lives in the locked row
            TokenBucket bucket = rateBucket(locked, now);
            if (bucket != null) {
                wantedHere = bucket.take(wantedHere, now * 1_000_000);
            }
            LiveCountDeltas counts = new LiveCountDeltas();
            Map<Long, DeadLetterWriter.Ended> expiredHere = new HashMap<>();
            List<HeldJob> taken = new ArrayList<>();
            boolean tookAllDue = false;
            // jobs past their expiry at the head of the queue are expired on the way: a page of
            // them must not make the reserve come back empty while jobs are ready behind them
            for (int round = 0; round < EXPIRY_ROUNDS && taken.size() < wantedHere; round++) {
                int want = wantedHere - taken.size();
                List<ReadyRow> page = r.readyRows(app, service, horizon, want + EXPIRED_SLACK);
                List<Long> expired = new ArrayList<>();
                Map<Long, Long> ready = new HashMap<>(); // id → due time
                for (ReadyRow row : page) {
                    if (row.expireAt != null && row.expireAt < now) {
                        expired.add(row.id);
                    } else if (ready.size() < want) {
                        ready.put(row.id, row.dueAt);
                    }
                }
                expire(s, m, expired, now, counts, expiredHere);
                taken.addAll(reserveAll(s, r, m, ready, ttrMs, node, now, horizon, holdMs, counts));
                tookAllDue = page.size() < want + EXPIRED_SLACK && ready.size() == page.size() - expired.size();
                if (expired.isEmpty() || page.size() < want + EXPIRED_SLACK) {
                    break; // nothing expired in the way, or nothing more to read
                }
            }
            if (bucket != null) {
                bucket.giveBack(wantedHere - taken.size());
                r.saveRateTokens(app, service, bucket.tokens(), bucket.lastNanos() / 1_000_000);
            }
            counts.writeTo(m);
            List<Job> letters = deadLetters.write(s, expiredHere, now);
            s.commit();
            deadLetters.stored(letters);
            return new Ahead(taken, tookAllDue);
        }
    }

    /**
     * Takes those of {@code dueAt}'s ids still ready (in id order, the lock order of every claim);
     * each is handed out at its due time, or now if that has passed. {@code dueAt}: the due times
     * read before (a job due already keeps its own, for a give-back to restore).
     */
    private List<HeldJob> reserveAll(
            SqlSession s,
            ReservationMapper r,
            JobMapper m,
            Map<Long, Long> dueAt,
            Long ttrMs,
            String node,
            long now,
            long horizon,
            long holdMs,
            LiveCountDeltas counts) {
        if (dueAt.isEmpty()) {
            return List.of();
        }
        IdList idList = IdList.of(dueAt.keySet().stream().sorted().toList());
        String token = tokens.next();
        if (r.reserve(idList, node, token, now, horizon, holdMs, ttrMs, PullLimits.MIN_TTR_MS, PullLimits.MAX_TTR_MS)
                == 0) {
            return List.of();
        }
        List<JobRow> rows = JobRowSelect.byToken(s, idList, token);
        List<HeldJob> taken = new ArrayList<>(rows.size());
        for (JobRow row : rows) {
            // when the update meant it to be handed out, from the deadline it wrote: the due time
            // read before it may have changed since (a reschedule), and a job is never handed out
            // before the due time it was taken at
            long ttr = ttrMs != null ? ttrMs : PullLimits.defaultTtr(row.timeoutMs);
            long handedOutAt = row.dueAt - holdMs - ttr;
            long due = handedOutAt > now ? handedOutAt : Math.min(dueAt.get(row.id), now);
            taken.add(new HeldJob(JobRows.toJob(row), due));
            counts.moved(row.app, row.service, DELAYED, row.state);
        }
        return taken;
    }

    /** The service's rate-limit bucket as its row keeps it; null without a limit. */
    private static TokenBucket rateBucket(ServiceLockRow row, long now) {
        if (row.ratePerSecond == null || row.rateBurst == null) {
            return null;
        }
        long at = row.rateAt == null ? now : row.rateAt;
        double tokens = row.rateTokens == null ? row.rateBurst : row.rateTokens;
        return TokenBucket.restored(row.ratePerSecond, row.rateBurst, tokens, at * 1_000_000);
    }

    /** Ends those of {@code ids} that are past their expiry EXPIRED, in the backlog. */
    private void expire(
            SqlSession s,
            JobMapper m,
            List<Long> ids,
            long now,
            LiveCountDeltas counts,
            Map<Long, DeadLetterWriter.Ended> ended) {
        if (ids.isEmpty()) {
            return;
        }
        IdList idList = IdList.of(ids.stream().sorted().toList());
        String token = tokens.next();
        if (m.expire(idList, token, now) > 0) {
            List<JobRow> rows = JobRowSelect.byToken(s, idList, token);
            IdList expired = IdList.of(rows.stream().map(row -> row.id).toList());
            m.copyToBacklog(expired, token, now);
            m.deleteLive(expired, token);
            rows.forEach(row -> {
                counts.removed(row.app, row.service, DELAYED);
                ended.put(row.id, new DeadLetterWriter.Ended(Job.serviceKey(row.app, row.service), JobState.EXPIRED));
            });
        }
    }

    /** Where the dead letters of the jobs this store expires are made (none until this is called). */
    public void sendDeadLettersTo(DeadLetters letters) {
        deadLetters.sendTo(letters);
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
