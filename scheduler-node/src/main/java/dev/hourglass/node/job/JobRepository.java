package dev.hourglass.node.job;

import java.util.List;
import java.util.Optional;

/** Storage port for submitting and reading jobs. Reads see live and final jobs alike. */
public interface JobRepository {

    /**
     * Inserts a new job. With a bizKey the app already used (live or final), inserts nothing and
     * returns the existing job with {@code created == false}.
     */
    Inserted insert(Job job);

    /** {@link #insert} for many jobs at once; one answer per job, in order. */
    List<Inserted> insertAll(List<Job> jobs);

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
