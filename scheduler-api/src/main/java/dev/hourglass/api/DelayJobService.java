package dev.hourglass.api;

import java.time.Instant;
import java.util.List;

/**
 * Job submission and management over Dubbo, exported by every node (docs/api.md, "Dubbo"). Same
 * semantics, limits and errors as the HTTP API: every method throws {@link HourglassException} with
 * the HTTP error code. The caller's app token travels as the Dubbo attachment {@value
 * #TOKEN_ATTACHMENT}.
 *
 * <p>The exception is unchecked, yet declared on every method: Dubbo's provider-side {@code
 * ExceptionFilter} logs each exception a method does not declare at ERROR with its stack trace, so
 * undeclared, every bad token or bad input of a client would write one into the node's log.
 */
public interface DelayJobService {
    String TOKEN_ATTACHMENT = "hourglass-token";
    /** With the admin token only: the app a call acts on (an app token acts on its own app). */
    String APP_ATTACHMENT = "hourglass-app";

    /** Submits one job; with a bizKey already known to the app, returns the existing job. */
    JobView submit(JobSubmission submission) throws HourglassException;

    /** Submits up to 1,000 jobs; one result per input, in input order. */
    List<BatchItemResult> submitBatch(List<JobSubmission> submissions) throws HourglassException;

    JobView get(String jobId) throws HourglassException;

    JobView getByBizKey(String bizKey) throws HourglassException;

    /** Changes a DELAYED job; CONFLICT otherwise. */
    JobView reschedule(String jobId, JobChange change) throws HourglassException;

    /** Cancels a DELAYED or RUNNING job; CONFLICT for a final one. */
    JobView cancel(String jobId) throws HourglassException;

    /** Fires a DELAYED job now. */
    JobView fireNow(String jobId) throws HourglassException;

    /** Puts a FAILED, CANCELED or EXPIRED job back to DELAYED at {@code fireAt} (null: now). */
    JobView retry(String jobId, Instant fireAt) throws HourglassException;

    /** Reports the result of the current attempt (CONSUMER ack mode); CONFLICT for another attempt. */
    JobView reportResult(String jobId, ResultReport report) throws HourglassException;

    /**
     * Pull consumers (docs/api.md, "Pull consumers"): reserves up to {@code max} ready jobs of the
     * caller's PULL services, in the order given, waiting up to {@code waitMs} when none is ready.
     * The wait holds no thread of the node.
     */
    List<Reservation> reserve(ReserveRequest request) throws HourglassException;

    /** Up to 1,000 results at once ({@link ResultReport#getJobId()} names each job); one answer per input, in order. */
    List<ResultAnswer> reportResults(List<ResultReport> results) throws HourglassException;

    /**
     * Moves a reservation's deadline to now + {@code ttrMs} (0: the job's default TTR, its timeout
     * within the TTR bounds); CONFLICT when the attempt is not current.
     */
    Reservation touch(String jobId, int attempt, long ttrMs) throws HourglassException;

    /** Creates or replaces the schedule {@code name} (docs/api.md, "Schedules"). */
    ScheduleView putSchedule(String name, ScheduleDefinition definition) throws HourglassException;

    ScheduleView getSchedule(String name) throws HourglassException;

    /**
     * A page of the app's schedules by name: up to {@code limit} (1..500) after {@code cursor} (the
     * last one's {@code app/name} from the page before, or null).
     */
    List<ScheduleView> listSchedules(String cursor, int limit) throws HourglassException;

    /** Deletes the schedule; its jobs that have not fired are canceled. */
    void deleteSchedule(String name) throws HourglassException;

    /** Pauses the schedule; its jobs that have not fired are canceled. */
    ScheduleView pauseSchedule(String name) throws HourglassException;

    /** Resumes the schedule from its next occurrence (the time paused is not caught up). */
    ScheduleView resumeSchedule(String name) throws HourglassException;

    /** Submits one job of the schedule now, outside the series; with a known {@code bizKey}, returns that job. */
    JobView triggerSchedule(String name, String bizKey) throws HourglassException;
}
