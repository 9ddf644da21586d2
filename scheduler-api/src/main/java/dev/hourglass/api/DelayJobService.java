package dev.hourglass.api;

import java.time.Instant;
import java.util.List;

/**
 * Job submission and management over Dubbo, exported by every node (SPEC §4). Same semantics,
 * limits and errors as the HTTP API: every method throws {@link HourglassException} with the HTTP
 * error code. The caller's app token travels as the Dubbo attachment {@value #TOKEN_ATTACHMENT}.
 */
public interface DelayJobService {
    String TOKEN_ATTACHMENT = "hourglass-token";
    /** With the admin token only: the app a call acts on (an app token acts on its own app). */
    String APP_ATTACHMENT = "hourglass-app";

    /** Submits one job; with a bizKey already known to the app, returns the existing job. */
    JobView submit(JobSubmission submission);

    /** Submits up to 1,000 jobs; one result per input, in input order. */
    List<BatchItemResult> submitBatch(List<JobSubmission> submissions);

    JobView get(String jobId);

    JobView getByBizKey(String bizKey);

    /** Changes a DELAYED job; CONFLICT otherwise. */
    JobView reschedule(String jobId, JobChange change);

    /** Cancels a DELAYED or RUNNING job; CONFLICT for a final one. */
    JobView cancel(String jobId);

    /** Fires a DELAYED job now. */
    JobView fireNow(String jobId);

    /** Puts a FAILED, CANCELED or EXPIRED job back to DELAYED at {@code fireAt} (null: now). */
    JobView retry(String jobId, Instant fireAt);

    /** Reports the result of the current attempt (CONSUMER ack mode); CONFLICT for another attempt. */
    JobView reportResult(String jobId, ResultReport report);
}
