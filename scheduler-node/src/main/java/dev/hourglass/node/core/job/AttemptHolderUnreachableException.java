package dev.hourglass.node.core.job;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.core.port.AttemptHolders;

/**
 * The node holding a job's claimed attempt is a member of the cluster but did not answer a request
 * to withhold it ({@link AttemptHolders}): the change that needed the answer was not made, and the
 * same call may succeed in a moment. Both front doors answer it as {@code UNAVAILABLE} (503).
 */
public class AttemptHolderUnreachableException extends HourglassException {
    private static final long serialVersionUID = 1L;
    private final String node;

    public AttemptHolderUnreachableException(String node, long jobId, int attempt, long waitedMs) {
        super(
                ErrorCode.UNAVAILABLE,
                "node " + node + " holds attempt " + attempt + " of job " + jobId + " and did not answer within "
                        + waitedMs + " ms: nothing was changed, try again");
        this.node = node;
    }

    public String node() {
        return node;
    }
}
