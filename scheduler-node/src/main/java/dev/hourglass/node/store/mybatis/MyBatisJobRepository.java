package dev.hourglass.node.store.mybatis;

import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Execution;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.JobPage;
import dev.hourglass.node.core.job.JobQuery;
import dev.hourglass.node.core.port.JobReads;
import dev.hourglass.node.core.port.JobWrites;
import dev.hourglass.node.core.port.StoreContendedException;
import dev.hourglass.node.core.port.StoreOutcomeUnknownException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link JobReads} and {@link JobWrites} on MyBatis. A bizKey is unique per app across live and final jobs: the
 * submit takes the key in the registry table {@code hg_biz_key} in the same transaction as the
 * job's insert, so of two concurrent submits with one key exactly one creates a job (the other
 * waits on the key's row lock, then finds the winner), and a key stays its job's after the job has
 * moved to the backlog.
 *
 * <p>A batch is one transaction: either every new job of it is committed, or none (a failure
 * answers an error for the whole call, and a retry of it creates nothing twice).
 */
public final class MyBatisJobRepository implements JobReads, JobWrites {
    private static final Logger LOG = LoggerFactory.getLogger(MyBatisJobRepository.class);
    private static final int TRIES_WITH_FRESH_IDS = 3;

    private final SqlSessionFactory sessions;
    private final SqlFailures failures;

    public MyBatisJobRepository(SqlSessionFactory sessions, SqlFailures failures) {
        this.sessions = sessions;
        this.failures = failures;
    }

    @Override
    public Inserted insert(Job job) {
        return insertAll(List.of(job), null).get(0);
    }

    @Override
    public List<Inserted> insertAll(List<Job> jobs) {
        return insertAll(jobs, null);
    }

    @Override
    public List<Inserted> insertAll(List<Job> jobs, UnaryOperator<Job> freshId) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        List<Job> batch = new ArrayList<>(jobs);
        for (int tries = 1; ; tries++) {
            try {
                return failures.retryingDeadlocks(() -> insertOnce(batch));
            } catch (RuntimeException e) {
                if (freshId == null || tries >= TRIES_WITH_FRESH_IDS || !isPrimaryKeyClash(e)) {
                    throw e;
                }
                // an id in use already (a worker id reused by a node whose clock stepped back):
                // nothing was written; the same jobs again under fresh ids
                batch.replaceAll(freshId);
            }
        }
    }

    private static boolean isPrimaryKeyClash(RuntimeException e) {
        return SqlFailures.isDuplicateKey(e)
                && String.valueOf(e.getMessage()).toUpperCase(Locale.ROOT).contains("PRIMARY");
    }

    private List<Inserted> insertOnce(List<Job> jobs) {
        try (SqlSession s = sessions.openSession(false)) {
            List<Inserted> answers = new ArrayList<>(jobs.size());
            List<JobRow> rows = new ArrayList<>(jobs.size());
            try {
                splitByBizKey(s, jobs, answers, rows);
            } catch (RuntimeException | Error e) {
                // forced: the keys were taken in plain JDBC, which MyBatis does not know of, and
                // its reset of auto-commit at the close would otherwise commit them
                SqlFailures.rollbackQuietly(s);
                throw e;
            }
            if (!rows.isEmpty()) {
                LiveCountDeltas counts = new LiveCountDeltas();
                rows.forEach(r -> counts.added(r.app, r.service, r.state));
                try {
                    JobRowInsert.insertLive(s.getConnection(), rows);
                    counts.writeTo(s.getConnection());
                } catch (SQLException e) {
                    // forced: closing rolls back only what MyBatis itself wrote, and the pool's
                    // reset of auto-commit would otherwise commit the JDBC rows
                    SqlFailures.rollbackQuietly(s);
                    throw UnavailabilityTranslator.translate(e);
                } catch (RuntimeException | Error e) {
                    SqlFailures.rollbackQuietly(s);
                    throw e;
                }
                try {
                    s.commit(true); // forced: MyBatis does not know of the insert made in JDBC
                } catch (StoreContendedException e) {
                    SqlFailures.rollbackQuietly(s); // the server answered: rolled back
                    throw e;
                } catch (StoreUnavailableException e) {
                    // the connection went away while the commit was under way: the server may
                    // have committed (only its answer was lost) or rolled back
                    return afterUnknownCommit(rows, answers, e);
                } catch (RuntimeException | Error e) {
                    SqlFailures.rollbackQuietly(s);
                    throw e;
                }
                return answers;
            }
            s.commit(true);
            return answers;
        }
    }

    /**
     * Takes the jobs' bizKeys; each job is then new (answered as itself, its row to insert) or its
     * key is held (answered with the holder).
     */
    private static void splitByBizKey(SqlSession s, List<Job> jobs, List<Inserted> answers, List<JobRow> rows) {
        Map<String, Long> holders = reserveBizKeys(s, jobs);
        Map<Long, Job> byId = new HashMap<>();
        jobs.forEach(j -> byId.put(j.id(), j));
        Set<Long> earlier = new HashSet<>();
        holders.values().stream().filter(id -> !byId.containsKey(id)).forEach(earlier::add);
        Map<Long, Job> existing = readByIds(s, earlier);
        for (Job job : jobs) {
            Long holder = job.bizKey() == null ? null : holders.get(keyOf(job.app(), job.bizKey()));
            if (holder == null || holder == job.id()) {
                answers.add(new Inserted(job, true));
                rows.add(JobRows.toRow(job));
            } else {
                Job winner = byId.containsKey(holder) ? byId.get(holder) : existing.get(holder);
                if (winner == null) {
                    throw new IllegalStateException("bizKey " + job.bizKey() + " of app " + job.app()
                            + " is held by job " + holder + ", which does not exist");
                }
                answers.add(new Inserted(winner, false));
            }
        }
    }

    /** How long the outcome of a commit whose connection went away is looked for. */
    static final long UNKNOWN_COMMIT_READ_BACK_MS = 10_000;

    /**
     * The commit of these rows lost its connection. A group is all or nothing, so one fresh read
     * tells: the rows (live, or already final) are there, and every caller gets its job; or none
     * is, and nothing was stored. The read locks the live rows, so it waits until the server has
     * ended the orphaned transaction either way. Should the database stay out of reach for
     * {@value #UNKNOWN_COMMIT_READ_BACK_MS} ms, the outcome stays unknown, and says so.
     */
    private List<Inserted> afterUnknownCommit(List<JobRow> rows, List<Inserted> answers, RuntimeException lost) {
        List<Long> ids = rows.stream().map(r -> r.id).toList();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(UNKNOWN_COMMIT_READ_BACK_MS);
        RuntimeException last = lost;
        do {
            try (SqlSession s = sessions.openSession(false)) {
                JobMapper m = s.getMapper(JobMapper.class);
                boolean stored = !JobRowSelect.lockLive(s, IdList.of(ids)).isEmpty() || m.findFinal(ids.get(0)) != null;
                s.rollback(true);
                if (stored) {
                    LOG.warn("the connection went away during the commit of {} jobs, which were stored", ids.size());
                    return answers;
                }
                throw new StoreUnavailableException(
                        "the database went away during the commit; nothing was stored: " + lost.getMessage(), lost);
            } catch (StoreUnavailableException e) {
                if (e.getCause() == lost) {
                    throw e;
                }
                last = e;
            } catch (RuntimeException e) {
                last = e;
            }
            sleepQuietly(200);
        } while (System.nanoTime() - deadline < 0);
        throw new StoreOutcomeUnknownException(
                "the database went away during the commit of " + ids.size()
                        + " jobs and did not come back to say whether they were stored: " + last.getMessage(),
                lost);
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Takes the keys of the batch (the first job of a key takes it); returns each key's holder. */
    static Map<String, Long> reserveBizKeys(SqlSession s, List<Job> jobs) {
        TreeMap<String, BizKeyRow> wanted = new TreeMap<>();
        for (Job job : jobs) {
            if (job.bizKey() != null) {
                wanted.putIfAbsent(keyOf(job.app(), job.bizKey()), new BizKeyRow(job.app(), job.bizKey(), job.id()));
            }
        }
        Map<String, Long> holders = new HashMap<>();
        if (wanted.isEmpty()) {
            return holders;
        }
        int taken;
        try {
            taken = BizKeyInsert.take(JobRowSelect.connection(s), new ArrayList<>(wanted.values()));
        } catch (SQLException e) {
            throw UnavailabilityTranslator.translate(e);
        }
        JobMapper m = s.getMapper(JobMapper.class);
        if (taken == wanted.size()) {
            // INSERT IGNORE counts the rows it inserted: every key went to its job, none was held,
            // so there is nothing to read back (the usual case: one round trip, not two)
            wanted.forEach((key, row) -> holders.put(key, row.jobId));
            return holders;
        }
        Map<String, List<String>> keysByApp = new HashMap<>();
        wanted.values()
                .forEach(k ->
                        keysByApp.computeIfAbsent(k.app, a -> new ArrayList<>()).add(k.bizKey));
        keysByApp.forEach(
                (app, keys) -> m.bizKeyOwners(app, keys).forEach(r -> holders.put(keyOf(r.app, r.bizKey), r.jobId)));
        return holders;
    }

    /** Reads of the two tables a job of a taken key may be missed between, before giving up. */
    private static final int HOLDER_READS = 3;

    /**
     * The jobs holding keys, live or final. Each statement reads its own snapshot (READ COMMITTED),
     * so a job that moves between the tables between the two reads (it ended: live to final; it
     * was retried: final to live) is in neither: those are read again, as a move is one commit.
     * A job that ended within milliseconds of its submit made a second submit of its key fail
     * with "held by a job which does not exist" (DubboSubmitIT, a schedule triggered twice).
     */
    static Map<Long, Job> readByIds(SqlSession s, Set<Long> ids) {
        JobMapper m = s.getMapper(JobMapper.class);
        Map<Long, Job> found = new HashMap<>();
        Set<Long> missing = new HashSet<>(ids);
        for (int read = 0; read < HOLDER_READS && !missing.isEmpty(); read++) {
            // MyBatis answers a statement it has run in this session with the same text from its
            // session cache: without this, a read again would never reach the database
            s.clearCache();
            m.findLiveByIds(IdList.of(missing)).forEach(r -> found.put(r.id, JobRows.toJob(r)));
            missing.removeAll(found.keySet());
            if (!missing.isEmpty()) {
                m.findFinalByIds(IdList.of(missing)).forEach(r -> found.put(r.id, JobRows.toJob(r)));
                missing.removeAll(found.keySet());
            }
        }
        return found;
    }

    /**
     * A LIKE pattern for the texts starting with {@code prefix}, for a statement with {@code ESCAPE
     * '!'}: not the server's default backslash, which NO_BACKSLASH_ESCAPES would turn off.
     */
    static String likePrefix(String prefix) {
        return prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
    }

    static String keyOf(String app, String bizKey) {
        return app + '\n' + bizKey;
    }

    @Override
    public Map<Long, Job> findLive(Collection<Long> ids) {
        Map<Long, Job> found = new HashMap<>();
        if (ids.isEmpty()) {
            return found;
        }
        try (SqlSession s = sessions.openSession(true)) {
            JobRowSelect.liveByIds(s, IdList.of(ids.stream().sorted().toList()))
                    .forEach(r -> found.put(r.id, JobRows.toJob(r)));
        }
        return found;
    }

    @Override
    public Optional<Job> find(long id) {
        try (SqlSession s = sessions.openSession(true)) {
            JobMapper m = s.getMapper(JobMapper.class);
            JobRow row = m.findLive(id);
            if (row == null) {
                row = m.findFinal(id);
            }
            if (row == null) {
                row = m.findLive(id); // moved back from the backlog by a manual retry in between
            }
            return Optional.ofNullable(row).map(JobRows::toJob);
        }
    }

    @Override
    public Optional<Job> findByBizKey(String app, String bizKey) {
        try (SqlSession s = sessions.openSession(true)) {
            JobMapper m = s.getMapper(JobMapper.class);
            List<JobRow> rows = m.findLiveByBizKeys(app, List.of(bizKey));
            if (rows.isEmpty()) {
                rows = m.findFinalByBizKeys(app, List.of(bizKey));
            }
            if (rows.isEmpty()) {
                rows = m.findLiveByBizKeys(app, List.of(bizKey));
            }
            return rows.stream().findFirst().map(JobRows::toJob);
        }
    }

    /**
     * Pages by id, or with a fire-time range by (fire time, id) through the fire-time index. Without
     * a state filter the search walks the live table, then the backlog; the cursor says which
     * ({@code L} or {@code F}) and where: {@code L<id>}, or {@code L<fireAt>.<id>} by fire time.
     * {@code F0} starts the backlog from its beginning.
     */
    @Override
    public JobPage search(JobQuery q) {
        boolean liveOnly = q.state() != null && !q.state().isFinal();
        boolean finalOnly = q.state() != null && q.state().isFinal();
        boolean inFinalPhase = finalOnly || (q.cursor() != null && q.cursor().startsWith("F"));
        SearchParams p = new SearchParams();
        p.byFireTime = q.fireFrom() != null || q.fireTo() != null;
        Position after = Position.of(q.cursor(), p.byFireTime);
        p.app = q.app();
        p.bizKey = q.bizKey();
        p.bizKeyLike = q.bizKeyPrefix() == null ? null : likePrefix(q.bizKeyPrefix());
        p.state = q.state() == null ? null : q.state().name();
        p.service = q.service();
        p.fireFrom = q.fireFrom();
        p.fireTo = q.fireTo();
        p.limit = q.limit() + 1;
        List<Job> items = new ArrayList<>();
        try (SqlSession s = sessions.openSession(true)) {
            JobMapper m = s.getMapper(JobMapper.class);
            if (!inFinalPhase) {
                after.bind(p);
                if (q.state() == JobState.RUNNING && q.bizKey() == null) {
                    Integer maxShard = m.maxLiveShard();
                    if (maxShard == null) {
                        return new JobPage(items, null); // no live job at all
                    }
                    p.shards = java.util.stream.IntStream.rangeClosed(0, maxShard)
                            .boxed()
                            .toList();
                }
                List<JobRow> live = m.searchLive(p);
                live.stream().limit(q.limit()).map(JobRows::toJob).forEach(items::add);
                if (live.size() > q.limit()) {
                    return new JobPage(items, "L" + Position.after(items.get(items.size() - 1), p.byFireTime));
                }
                if (liveOnly) {
                    return new JobPage(items, null);
                }
                after = Position.START;
            }
            after.bind(p);
            p.limit = q.limit() - items.size() + 1;
            // a job that ended between the two reads is in both: list it once
            Set<Long> listed = items.stream().map(Job::id).collect(Collectors.toSet());
            List<JobRow> ended = m.searchFinal(p);
            int room = q.limit() - items.size();
            ended.stream()
                    .limit(room)
                    .map(JobRows::toJob)
                    .filter(j -> !listed.contains(j.id()))
                    .forEach(items::add);
            // the backlog resumes after its own last row read, also when that row was a job already
            // listed from the live table (it ended between the two reads)
            String next = ended.size() > room && room > 0
                    ? "F" + Position.after(JobRows.toJob(ended.get(room - 1)), p.byFireTime)
                    : null;
            if (room == 0 && !ended.isEmpty()) {
                next = "F0";
            }
            return new JobPage(items, next);
        }
    }

    /** Where a page starts: after this (fire time and) id, or at the start. */
    private record Position(Long fireAt, Long id) {
        static final Position START = new Position(null, null);

        /** The cursor's position; the route checked its form ({@code QueryParams.jobCursor}). */
        static Position of(String cursor, boolean byFireTime) {
            if (cursor == null || cursor.equals("F0")) {
                return START;
            }
            String rest = cursor.substring(1);
            int dot = rest.indexOf('.');
            if (byFireTime != (dot >= 0)) {
                throw HourglassException.invalid(
                        "cursor",
                        "cursor is from a search with other filters (fireFrom/fireTo): start again without it");
            }
            return dot < 0
                    ? new Position(null, Long.valueOf(rest))
                    : new Position(Long.valueOf(rest.substring(0, dot)), Long.valueOf(rest.substring(dot + 1)));
        }

        static String after(Job last, boolean byFireTime) {
            return byFireTime ? last.fireAt() + "." + last.id() : Long.toString(last.id());
        }

        void bind(SearchParams p) {
            p.afterId = id;
            p.afterFireAt = fireAt;
        }
    }

    @Override
    public List<Execution> executions(long jobId) {
        try (SqlSession s = sessions.openSession(true)) {
            JobMapper m = s.getMapper(JobMapper.class);
            // the attempt in flight first: read after the log, an attempt ending in between would
            // be missing from both (its log row written, its live row changed)
            ExecutionRow running = m.runningAttempt(jobId);
            List<ExecutionRow> rows = new ArrayList<>(m.executions(jobId));
            if (running != null && rows.stream().noneMatch(r -> r.attempt == running.attempt)) {
                rows.add(running);
                rows.sort(Comparator.comparingInt(r -> r.attempt));
            }
            return rows.stream().map(JobRows::toExecution).toList();
        }
    }

    @Override
    public Map<String, Long> oldestWaitingDueAt() {
        try (SqlSession s = sessions.openSession(true)) {
            Map<String, Long> oldest = new HashMap<>();
            for (OldestWaitingRow r : s.getMapper(JobMapper.class).oldestWaiting()) {
                if (r.dueAt != null) {
                    oldest.put(Job.serviceKey(r.app, r.service), r.dueAt);
                }
            }
            return oldest;
        }
    }

    @Override
    public List<LiveCount> countLive(String app) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(JobMapper.class).countLive(app).stream()
                    .map(r -> new LiveCount(r.app, r.service, r.state, r.count))
                    .toList();
        }
    }
}
