package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.Job;

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
     * The consumer's result for the job's current attempt, written now; a result for an attempt
     * that is no longer current changes nothing.
     */
    void report(Job job, AttemptOutcome outcome, Long retryAfterMs, String message);
}
