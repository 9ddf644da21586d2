package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.job.Execution;
import dev.hourglass.node.job.Job;
import dev.hourglass.node.job.JobPage;
import dev.hourglass.node.job.JobQuery;
import dev.hourglass.node.job.JobRepository;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * {@link JobRepository} on MyBatis. A bizKey is unique per app across live and final jobs: the
 * live table's unique key settles races between concurrent submits, and the backlog is checked
 * first so a finished job's key is not reused.
 */
public final class MyBatisJobRepository implements JobRepository {
    private final SqlSessionFactory sessions;

    public MyBatisJobRepository(SqlSessionFactory sessions) {
        this.sessions = sessions;
    }

    @Override
    public Inserted insert(Job job) {
        if (job.bizKey() != null) {
            Optional<Job> existing = findByBizKey(job.app(), job.bizKey());
            if (existing.isPresent()) {
                return new Inserted(existing.get(), false);
            }
        }
        try (SqlSession s = sessions.openSession(true)) {
            s.getMapper(JobMapper.class).insert(JobRows.toRow(job));
            return new Inserted(job, true);
        } catch (RuntimeException e) {
            if (job.bizKey() != null && Duplicates.isDuplicateKey(e)) {
                // a concurrent submit with the same bizKey won the unique key
                Optional<Job> winner = findByBizKey(job.app(), job.bizKey());
                if (winner.isPresent()) {
                    return new Inserted(winner.get(), false);
                }
            }
            throw e;
        }
    }

    @Override
    public List<Inserted> insertAll(List<Job> jobs) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        Map<String, Job> known = existingByBizKey(jobs);
        List<Inserted> answers = new ArrayList<>(jobs.size());
        List<JobRow> rows = new ArrayList<>(jobs.size());
        for (Job job : jobs) {
            String key = job.bizKey() == null ? null : job.app() + '\n' + job.bizKey();
            Job earlier = key == null ? null : known.get(key);
            if (earlier != null) {
                answers.add(new Inserted(earlier, false));
            } else {
                if (key != null) {
                    known.put(key, job); // the same key twice in one batch: the first one wins
                }
                answers.add(new Inserted(job, true));
                rows.add(JobRows.toRow(job));
            }
        }
        if (rows.isEmpty()) {
            return answers;
        }
        try (SqlSession s = sessions.openSession(true)) {
            s.getMapper(JobMapper.class).insertAll(rows);
            return answers;
        } catch (RuntimeException e) {
            if (!Duplicates.isDuplicateKey(e)) {
                throw e;
            }
        }
        // a concurrent submit took one of the keys: the multi-row insert wrote nothing; go one by one
        List<Inserted> slow = new ArrayList<>(jobs.size());
        for (Job job : jobs) {
            slow.add(insert(job));
        }
        return slow;
    }

    private Map<String, Job> existingByBizKey(List<Job> jobs) {
        Map<String, Set<String>> keysByApp = new HashMap<>();
        for (Job job : jobs) {
            if (job.bizKey() != null) {
                keysByApp.computeIfAbsent(job.app(), a -> new LinkedHashSet<>()).add(job.bizKey());
            }
        }
        Map<String, Job> known = new HashMap<>();
        if (keysByApp.isEmpty()) {
            return known;
        }
        try (SqlSession s = sessions.openSession(true)) {
            JobMapper m = s.getMapper(JobMapper.class);
            keysByApp.forEach((app, keys) -> {
                for (JobRow r : m.findFinalByBizKeys(app, keys)) {
                    known.put(app + '\n' + r.bizKey, JobRows.toJob(r));
                }
                for (JobRow r : m.findLiveByBizKeys(app, keys)) {
                    known.put(app + '\n' + r.bizKey, JobRows.toJob(r));
                }
            });
        }
        return known;
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
     * Pages by id. Without a state filter the search walks the live table, then the backlog; the
     * cursor says which ({@code L<id>} or {@code F<id>}).
     */
    @Override
    public JobPage search(JobQuery q) {
        boolean liveOnly = q.state() != null && !q.state().isFinal();
        boolean finalOnly = q.state() != null && q.state().isFinal();
        boolean inFinalPhase = finalOnly || (q.cursor() != null && q.cursor().startsWith("F"));
        Long afterId = q.cursor() == null ? null : Long.valueOf(q.cursor().substring(1));
        SearchParams p = new SearchParams();
        p.app = q.app();
        p.bizKey = q.bizKey();
        p.state = q.state() == null ? null : q.state().name();
        p.service = q.service();
        p.fireFrom = q.fireFrom();
        p.fireTo = q.fireTo();
        p.limit = q.limit() + 1;
        List<Job> items = new ArrayList<>();
        try (SqlSession s = sessions.openSession(true)) {
            JobMapper m = s.getMapper(JobMapper.class);
            if (!inFinalPhase) {
                p.afterId = afterId;
                List<JobRow> live = m.searchLive(p);
                live.stream().limit(q.limit()).map(JobRows::toJob).forEach(items::add);
                if (live.size() > q.limit()) {
                    return new JobPage(items, "L" + items.get(items.size() - 1).id());
                }
                if (liveOnly) {
                    return new JobPage(items, null);
                }
                afterId = null;
            }
            p.afterId = afterId;
            p.limit = q.limit() - items.size() + 1;
            List<JobRow> ended = m.searchFinal(p);
            int room = q.limit() - items.size();
            ended.stream().limit(room).map(JobRows::toJob).forEach(items::add);
            String next = ended.size() > room && room > 0
                    ? "F" + items.get(items.size() - 1).id()
                    : null;
            if (room == 0 && !ended.isEmpty()) {
                next = "F0";
            }
            return new JobPage(items, next);
        }
    }

    @Override
    public List<Execution> executions(long jobId) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(JobMapper.class).executions(jobId).stream()
                    .map(JobRows::toExecution)
                    .toList();
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
