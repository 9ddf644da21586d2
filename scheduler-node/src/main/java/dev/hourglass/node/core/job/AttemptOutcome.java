package dev.hourglass.node.core.job;

/**
 * How one attempt ended, as recorded in the execution log (docs/api.md, "Jobs": {@code GET
 * /api/v1/jobs/{id}/executions}).
 */
public enum AttemptOutcome {
    /** Delivered: callback success, or broker acknowledged in AUTO mode. */
    SUCCESS,
    /** The receiver asked to retry, or answered a non-2xx status. */
    RETRY,
    /** The receiver refused for good (FAIL result, HTTP 410). */
    FAIL,
    /** No answer within the job's timeout. */
    TIMEOUT,
    /** Connection or broker error. */
    ERROR,
    /**
     * A pull consumer gave its reservation back without working on it (RELEASE): the attempt does
     * not count against the job's budget.
     */
    RELEASED
}
