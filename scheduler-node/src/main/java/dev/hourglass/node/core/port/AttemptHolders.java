package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.AttemptHolderUnreachableException;

/**
 * Port to the node that holds a claimed attempt, so that a change made through any node (a cancel)
 * can keep it from leaving without a database read at the attempt's fire time.
 *
 * <p>Why: a node claims a job up to {@code engine.claimLeadMs} before its fire time (or it waits at
 * its service's full gate) and sends it from memory at that time. The claim is the database check;
 * what changes the job after it — a cancel through another node — reaches the holder's memory
 * through this port, while the canceller holds the job's row lock, and the cancel commits only with
 * the holder's answer (docs/design.md, "No database read at the fire time").
 *
 * <p>Contract: {@link #withhold} returns only what the holder knows for certain; a holder that does
 * not answer in time while it is still a member of the cluster is an error (the change must not
 * commit: the attempt may still leave), one that is no longer a member cannot send (its shard lease
 * has lapsed) and counts as {@link Answer#UNKNOWN}.
 */
public interface AttemptHolders {

    /** What the holder did with the request. */
    enum Answer {
        /** It will never send this attempt: it was waiting (for its fire time, at its gate) or not yet taken from its claim. */
        WITHHELD,
        /** It has sent it (or is sending it): the attempt may arrive, and its result will be written. */
        UNDER_WAY,
        /** It does not hold the attempt (an earlier life of the node, or the node is gone): it may have been sent. */
        UNKNOWN
    }

    /**
     * Asks {@code node} to keep attempt {@code attempt} of job {@code jobId} from leaving.
     *
     * @throws AttemptHolderUnreachableException the node is a member of the cluster and did not
     *     answer in time: nothing may be changed
     */
    Answer withhold(String node, long jobId, int attempt);
}
