package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.ScheduleStore;
import dev.hourglass.node.core.schedule.Misfire;
import dev.hourglass.node.core.schedule.Overlap;
import dev.hourglass.node.core.schedule.Schedule;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * {@link ScheduleStore} on MariaDB/MySQL and H2. A materialisation pass is one transaction: the
 * schedule row locked ({@code SELECT … FOR UPDATE}) and checked, the occurrences' bizKeys taken
 * (one already taken is skipped: its occurrence has a job), the job rows inserted with their live
 * counts, the cursor moved. Statements per pass: 1 lock + 1 key insert (+1 read of holders when a
 * key was taken) + 1 job insert + 1 count insert + 1 update, for all its occurrences together.
 */
public final class MyBatisScheduleStore implements ScheduleStore {
    private final SqlSessionFactory sessions;
    private final SqlFailures failures;

    public MyBatisScheduleStore(SqlSessionFactory sessions, SqlFailures failures) {
        this.sessions = sessions;
        this.failures = failures;
    }

    @Override
    public Schedule put(Schedule schedule) {
        try {
            return failures.retryingDeadlocks(() -> putOnce(schedule));
        } catch (RuntimeException e) {
            if (!SqlFailures.isDuplicateKey(e)) {
                throw e;
            }
            // two first puts of one name at once: the lock found no row for either (no gap locks at
            // READ COMMITTED) and the other's insert came first; this one is a replace of it
            return failures.retryingDeadlocks(() -> putOnce(schedule));
        }
    }

    private Schedule putOnce(Schedule schedule) {
        try (SqlSession s = sessions.openSession(false)) {
            ScheduleMapper m = s.getMapper(ScheduleMapper.class);
            ScheduleRow before = m.lock(schedule.app(), schedule.name());
            ScheduleRow row = toRow(schedule);
            if (before == null) {
                m.insert(row);
            } else {
                row.generation = Math.max(schedule.generation(), before.generation + 1);
                m.replace(row);
            }
            s.commit();
            return toSchedule(row);
        }
    }

    @Override
    public Optional<Schedule> find(String app, String name) {
        try (SqlSession s = sessions.openSession(true)) {
            return Optional.ofNullable(s.getMapper(ScheduleMapper.class).find(app, name))
                    .map(MyBatisScheduleStore::toSchedule);
        }
    }

    /**
     * From the bizKey registry (its primary key, app and key): the keys of a generation are its
     * prefix and an occurrence's epoch milliseconds, which have 13 digits from 2001 to 2286, so
     * their order as text is that of the times, and [prefix, prefix + at] holds the generation's
     * occurrences up to {@code atMs} and nothing else.
     */
    @Override
    public Optional<SubmittedOccurrence> lastSubmittedAtOrBefore(Schedule schedule, long atMs) {
        String zeroth = schedule.bizKeyOf(0);
        String prefix = zeroth.substring(0, zeroth.length() - 1); // "sched:<name>:<generation>:"
        try (SqlSession s = sessions.openSession(true)) {
            BizKeyRow row = s.getMapper(ScheduleMapper.class).lastBizKeyWithin(schedule.app(), prefix, prefix + atMs);
            if (row == null) {
                return Optional.empty();
            }
            return Optional.of(
                    new SubmittedOccurrence(Long.parseLong(row.bizKey.substring(prefix.length())), row.jobId));
        }
    }

    @Override
    public List<Schedule> list(String app, String afterApp, String afterName, int limit) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(ScheduleMapper.class).list(app, afterApp, afterName, limit).stream()
                    .map(MyBatisScheduleStore::toSchedule)
                    .toList();
        }
    }

    @Override
    public Optional<Schedule> delete(String app, String name) {
        return failures.retryingDeadlocks(() -> {
            try (SqlSession s = sessions.openSession(false)) {
                ScheduleMapper m = s.getMapper(ScheduleMapper.class);
                ScheduleRow row = m.lock(app, name);
                if (row != null) {
                    m.delete(app, name);
                }
                s.commit();
                return Optional.ofNullable(row).map(MyBatisScheduleStore::toSchedule);
            }
        });
    }

    @Override
    public List<String> namingService(String app, String service) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(ScheduleMapper.class).namingService(app, service);
        }
    }

    @Override
    public Optional<Schedule> setPaused(String app, String name, boolean paused, long now) {
        return failures.retryingDeadlocks(() -> {
            try (SqlSession s = sessions.openSession(false)) {
                ScheduleMapper m = s.getMapper(ScheduleMapper.class);
                if (m.lock(app, name) == null) {
                    return Optional.empty();
                }
                if (paused) {
                    m.pause(app, name, now);
                } else {
                    m.resume(app, name, now);
                }
                ScheduleRow after = m.find(app, name);
                s.commit();
                return Optional.of(toSchedule(after));
            }
        });
    }

    @Override
    public List<Schedule> due(Collection<Integer> shards, long now, int limit) {
        if (shards.isEmpty()) {
            return List.of();
        }
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(ScheduleMapper.class).due(new ArrayList<>(shards), now, limit).stream()
                    .map(MyBatisScheduleStore::toSchedule)
                    .toList();
        }
    }

    @Override
    public Optional<List<Job>> materialize(Schedule seen, List<Job> jobs, long cursorAt, Long nextCheckAt, long now) {
        return failures.retryingDeadlocks(() -> materializeOnce(seen, jobs, cursorAt, nextCheckAt, now));
    }

    private Optional<List<Job>> materializeOnce(
            Schedule seen, List<Job> jobs, long cursorAt, Long nextCheckAt, long now) {
        try (SqlSession s = sessions.openSession(false)) {
            try {
                return materializeIn(s, seen, jobs, cursorAt, nextCheckAt, now);
            } catch (RuntimeException | Error e) {
                // forced: the job rows were inserted in plain JDBC, which MyBatis does not know of,
                // and the pool's reset of auto-commit would otherwise commit them
                SqlFailures.rollbackQuietly(s);
                throw e;
            }
        }
    }

    private Optional<List<Job>> materializeIn(
            SqlSession s, Schedule seen, List<Job> jobs, long cursorAt, Long nextCheckAt, long now) {
        ScheduleMapper m = s.getMapper(ScheduleMapper.class);
        ScheduleRow current = m.lock(seen.app(), seen.name());
        if (current == null
                || current.generation != seen.generation()
                || current.cursorAt != seen.cursorAt()
                || current.paused) {
            s.rollback(true);
            return Optional.empty(); // replaced, paused, deleted, or another pass went first
        }
        List<Job> inserted = new ArrayList<>(jobs.size());
        if (!jobs.isEmpty()) {
            Map<String, Long> holders = MyBatisJobRepository.reserveBizKeys(s, jobs);
            List<JobRow> rows = new ArrayList<>(jobs.size());
            LiveCountDeltas counts = new LiveCountDeltas();
            for (Job job : jobs) {
                Long holder = holders.get(MyBatisJobRepository.keyOf(job.app(), job.bizKey()));
                if (holder != null && holder == job.id()) {
                    inserted.add(job);
                    rows.add(JobRows.toRow(job));
                    counts.added(job.app(), job.service(), job.state().name());
                }
            }
            if (!rows.isEmpty()) {
                try {
                    JobRowInsert.insertLive(s.getConnection(), rows);
                    counts.writeTo(s.getConnection());
                } catch (SQLException e) {
                    throw UnavailabilityTranslator.translate(e); // rolled back by the caller
                }
            }
        }
        Job last = inserted.isEmpty() ? null : inserted.get(inserted.size() - 1);
        m.advance(
                seen.app(),
                seen.name(),
                cursorAt,
                nextCheckAt,
                last == null ? null : Long.valueOf(last.attributes().get(Schedule.ATTRIBUTE_OCCURRENCE)),
                last == null ? null : last.id(),
                now);
        s.commit(true); // forced: MyBatis does not know of the rows inserted in JDBC
        return Optional.of(inserted);
    }

    @Override
    public List<ScheduledJob> unfiredJobs(String app, String name) {
        String prefix = Schedule.bizKeyPrefix(name);
        try (SqlSession s = sessions.openSession(true)) {
            List<ScheduledJob> jobs = new ArrayList<>();
            for (BizKeyRow r :
                    s.getMapper(ScheduleMapper.class).unfiredJobs(app, MyBatisJobRepository.likePrefix(prefix))) {
                // sched:<name>:<generation>:<occurrence>; a trigger's job has the client's key
                String rest = r.bizKey.substring(prefix.length());
                int colon = rest.indexOf(':');
                if (colon > 0 && rest.substring(0, colon).chars().allMatch(Character::isDigit)) {
                    jobs.add(new ScheduledJob(r.jobId, Long.parseLong(rest.substring(0, colon))));
                }
            }
            return jobs;
        }
    }

    @Override
    public void postpone(String app, String name, long generation, long until) {
        try (SqlSession s = sessions.openSession(true)) {
            s.getMapper(ScheduleMapper.class).postpone(app, name, generation, until);
        }
    }

    static ScheduleRow toRow(Schedule x) {
        ScheduleRow r = new ScheduleRow();
        r.app = x.app();
        r.name = x.name();
        r.shard = x.shard();
        r.service = x.service();
        r.cron = x.cron();
        r.everyMs = x.everyMs();
        r.timeZone = x.timeZone();
        r.payload = x.payload();
        r.attributes = JobRows.attributesToJson(x.attributes());
        r.startAt = x.startAt();
        r.endAt = x.endAt();
        r.misfire = x.misfire().name();
        r.catchUpWindowMs = x.catchUpWindowMs();
        r.overlap = x.overlap().name();
        r.paused = x.paused();
        r.pausedAt = x.pausedAt();
        r.maxAttempts = x.maxAttempts();
        r.timeoutMs = x.timeoutMs();
        r.expireAfterMs = x.expireAfterMs();
        r.generation = x.generation();
        r.cursorAt = x.cursorAt();
        r.nextCheckAt = x.nextCheckAt();
        r.lastOccurrenceAt = x.lastOccurrenceAt();
        r.lastJobId = x.lastJobId();
        r.createdAt = x.createdAt();
        r.updatedAt = x.updatedAt();
        return r;
    }

    static Schedule toSchedule(ScheduleRow r) {
        return new Schedule(
                r.app,
                r.name,
                r.shard,
                r.service,
                r.cron,
                r.everyMs,
                r.timeZone,
                r.payload,
                JobRows.attributesFromJson(r.attributes),
                r.startAt,
                r.endAt,
                Misfire.valueOf(r.misfire),
                r.catchUpWindowMs,
                Overlap.valueOf(r.overlap),
                r.paused,
                r.pausedAt,
                r.maxAttempts,
                r.timeoutMs,
                r.expireAfterMs,
                r.generation,
                r.cursorAt,
                r.nextCheckAt,
                r.lastOccurrenceAt,
                r.lastJobId,
                r.createdAt,
                r.updatedAt);
    }
}
