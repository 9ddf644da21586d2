package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import java.util.List;
import java.util.Set;

/**
 * What the job operations (submit, reschedule, cancel, report) tell this node's firing engine, so a
 * job made due soon fires on time without waiting for the next read of the database. Memory only,
 * except {@link #report}, which writes the result.
 */
public interface FiringControl {
    /** A job this node made due (submit, reschedule, retry, fire now): into memory if it is near. */
    void admit(Job job);

    /** A job canceled or moved away through this node: out of memory. */
    void forget(long jobId);

    /** Whether a job due then would be in this node's memory: the placement rule's question. */
    boolean isWithinLoadedWindow(long dueAt);

    /**
     * Consumers' results for their jobs' current attempts, written now in one transaction; a result
     * for an attempt that is no longer current changes nothing. Returns the jobs whose attempt a
     * result ended.
     */
    Set<Long> recordReported(List<AttemptResult> results);
}
