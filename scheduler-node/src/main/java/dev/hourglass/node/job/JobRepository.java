package dev.hourglass.node.job;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Storage port for submitting and reading jobs. Reads see live and final jobs alike. */
public interface JobRepository {

    /**
     * Inserts a new job. With a bizKey the app already used (live or final), inserts nothing and
     * returns the existing job with {@code created == false}.
     */
    Inserted insert(Job job);

    /**
     * {@link #insert} for many jobs at once, all or nothing: one answer per job, in order, and
     * either every new job is stored or none is (the call then fails).
     */
    List<Inserted> insertAll(List<Job> jobs);

    /**
     * {@link #insertAll}; when a job's id turns out to be taken already, the batch is tried again
     * with {@code freshId} applied to every job (a new id, and what depends on it).
     */
    List<Inserted> insertAll(List<Job> jobs, UnaryOperator<Job> freshId);

    Optional<Job> find(long id);

    Optional<Job> findByBizKey(String app, String bizKey);

    JobPage search(JobQuery query);

    /** The job's attempts, oldest first. */
    List<Execution> executions(long jobId);

    /** Live jobs counted by app, service and state ({@code app == null}: every app). */
    List<LiveCount> countLive(String app);

    record Inserted(Job job, boolean created) {}

    record LiveCount(String app, String service, String state, long count) {}
}
