package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.Execution;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.JobPage;
import dev.hourglass.node.core.job.JobQuery;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Storage port for reading jobs, live and final alike. Reads change nothing. */
public interface JobReads {

    Optional<Job> find(long id);

    Optional<Job> findByBizKey(String app, String bizKey);

    /** The live ones of these jobs (not final), in one read; a job not found is absent. */
    Map<Long, Job> findLive(Collection<Long> ids);

    JobPage search(JobQuery query);

    /** The job's attempts, oldest first. */
    List<Execution> executions(long jobId);

    /** Live jobs counted by app, service and state ({@code app == null}: every app). */
    List<LiveCount> countLive(String app);

    /**
     * Per service (its key), the due time of its oldest waiting job: DELAYED, not claimed nor
     * reserved; services without one are absent. One short index read per service.
     */
    Map<String, Long> oldestWaitingDueAt();

    record LiveCount(String app, String service, String state, long count) {}
}
