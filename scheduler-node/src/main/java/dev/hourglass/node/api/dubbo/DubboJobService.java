package dev.hourglass.node.api.dubbo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.api.BatchItemResult;
import dev.hourglass.api.DelayJobService;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobChange;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.JobView;
import dev.hourglass.api.Reservation;
import dev.hourglass.api.ReserveRequest;
import dev.hourglass.api.ResultAnswer;
import dev.hourglass.api.ResultReport;
import dev.hourglass.api.ScheduleDefinition;
import dev.hourglass.api.ScheduleView;
import dev.hourglass.node.api.FrontDoorRules;
import dev.hourglass.node.api.TraceHeaders;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.TraceContext;
import dev.hourglass.node.core.schedule.ScheduleSpec;
import dev.hourglass.node.manage.JobInputs;
import dev.hourglass.node.manage.JobManager;
import dev.hourglass.node.manage.JobViews;
import dev.hourglass.node.pull.PullConsumers;
import dev.hourglass.node.schedule.ScheduleCommands;
import dev.hourglass.node.schedule.ScheduleViews;
import dev.hourglass.node.tenant.Caller;
import dev.hourglass.node.tenant.RateLimitedException;
import dev.hourglass.node.tenant.Tenants;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.apache.dubbo.rpc.AsyncContext;
import org.apache.dubbo.rpc.RpcContext;

/**
 * {@link DelayJobService} over Dubbo (docs/api.md, "Dubbo"): the same {@link JobManager} as the HTTP API, so the
 * same semantics, limits and error codes. The caller is the app of the {@code hourglass-token}
 * attachment; the admin names the app with {@code hourglass-app}.
 *
 * <p>Every failure leaves as a plain {@link HourglassException} ({@link FrontDoorRules#toClient}):
 * Dubbo hands an exception of the interface's own jar to the caller as it is, where any other — a
 * node-only subclass too — would arrive as a bare RuntimeException with a stack trace for a
 * message.
 */
public final class DubboJobService implements DelayJobService {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final JobManager jobs;
    private final PullConsumers pull;
    private final Tenants tenants;
    private final FrontDoorRules rules;
    private final ScheduleCommands schedules;

    public DubboJobService(
            JobManager jobs, PullConsumers pull, ScheduleCommands schedules, Tenants tenants, FrontDoorRules rules) {
        this.schedules = schedules;
        this.jobs = jobs;
        this.pull = pull;
        this.tenants = tenants;
        this.rules = rules;
    }

    @Override
    public JobView submit(JobSubmission submission) {
        return call("submit", () -> {
            String app = actingApp(caller());
            if (submission == null) {
                throw HourglassException.invalid("submission", "a job is required");
            }
            return JobViews.of(jobs.submit(app, withJsonPayload(submission), traceContext())
                    .job());
        });
    }

    @Override
    public List<BatchItemResult> submitBatch(List<JobSubmission> submissions) {
        return call("submitBatch", () -> {
            String app = actingApp(caller());
            if (submissions == null) {
                throw HourglassException.invalid("jobs", "jobs must be a non-empty list");
            }
            // a payload that is not JSON fails its own item, as a bad item of an HTTP batch does
            List<JobSubmission> checked = new ArrayList<>(submissions.size());
            List<HourglassException> inputErrors = new ArrayList<>(submissions.size());
            for (JobSubmission s : submissions) {
                try {
                    checked.add(s == null ? null : withJsonPayload(s));
                    inputErrors.add(null);
                } catch (HourglassException e) {
                    checked.add(null);
                    inputErrors.add(e);
                }
            }
            List<BatchItemResult> results = new ArrayList<>(submissions.size());
            for (JobManager.BatchOutcome outcome : jobs.submitBatch(app, checked, inputErrors, traceContext())) {
                results.add(
                        outcome.job() != null
                                ? new BatchItemResult().setJob(JobViews.of(outcome.job()))
                                : new BatchItemResult()
                                        .setErrorCode(outcome.error().code())
                                        .setErrorMessage(outcome.error().getMessage())
                                        .setErrorField(outcome.error().field()));
            }
            return results;
        });
    }

    @Override
    public JobView get(String jobId) {
        return call("get", () -> JobViews.of(jobs.get(caller(), id(jobId))));
    }

    @Override
    public JobView getByBizKey(String bizKey) {
        return call("getByBizKey", () -> JobViews.of(jobs.getByBizKey(actingApp(caller()), bizKey)));
    }

    @Override
    public JobView reschedule(String jobId, JobChange change) {
        return call("reschedule", () -> {
            Caller caller = caller();
            long id = id(jobId);
            if (change == null) {
                throw HourglassException.invalid("change", "a change is required");
            }
            JobChange checked = new JobChange()
                    .setFireAt(change.getFireAt())
                    .setDelayMs(change.getDelayMs())
                    .setPayload(change.getPayload() == null ? null : jsonText(change.getPayload()))
                    .setAttributes(change.getAttributes());
            return JobViews.of(jobs.reschedule(caller, id, checked));
        });
    }

    @Override
    public JobView cancel(String jobId) {
        return call("cancel", () -> JobViews.of(jobs.cancel(caller(), id(jobId))));
    }

    @Override
    public JobView fireNow(String jobId) {
        return call("fireNow", () -> JobViews.of(jobs.fireNow(caller(), id(jobId))));
    }

    @Override
    public JobView retry(String jobId, Instant fireAt) {
        return call("retry", () -> JobViews.of(jobs.retry(caller(), id(jobId), fireAt, null)));
    }

    @Override
    public JobView reportResult(String jobId, ResultReport report) {
        return call("reportResult", () -> {
            Caller caller = caller();
            long id = id(jobId);
            if (report == null) {
                throw HourglassException.invalid("status", "a report is required");
            }
            return JobViews.of(jobs.reportResult(caller, id, report));
        });
    }

    /**
     * Answers at once when something is ready or no wait is asked; else the call is answered later
     * through Dubbo's AsyncContext, so a waiting consumer holds no thread of Dubbo's pool. (Its
     * client's timeout must exceed {@code waitMs}.)
     */
    @Override
    public List<Reservation> reserve(ReserveRequest request) {
        return call("reserve", () -> {
            String app = actingApp(caller());
            CompletableFuture<List<Job>> reserved = pull.reserve(app, request);
            if (reserved.isDone() && !reserved.isCompletedExceptionally()) {
                return reservations(reserved.join());
            }
            AsyncContext later = RpcContext.startAsync();
            reserved.whenComplete((got, failure) -> {
                later.signalContextSwitch();
                later.write(
                        failure == null
                                ? reservations(got)
                                : FrontDoorRules.toClient(unwrapped(failure), "Dubbo reserve"));
            });
            return null; // the answer is the AsyncContext's
        });
    }

    private static RuntimeException unwrapped(Throwable failure) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
    }

    private static List<Reservation> reservations(List<Job> reserved) {
        List<Reservation> views = new ArrayList<>(reserved.size());
        reserved.forEach(j -> views.add(JobViews.reservation(j)));
        return views;
    }

    @Override
    public List<ResultAnswer> reportResults(List<ResultReport> results) {
        return call("reportResults", () -> {
            Caller caller = caller();
            if (results == null) {
                throw HourglassException.invalid("results", "results must be a list");
            }
            List<ResultAnswer> answers = new ArrayList<>(results.size());
            List<ResultReport> given = new ArrayList<>(results.size());
            for (ResultReport r : results) {
                given.add(r == null ? new ResultReport() : r); // a null item: no status, refused alone
            }
            for (JobManager.ResultOutcome o : jobs.reportResults(caller, given)) {
                ResultAnswer a = new ResultAnswer().setJobId(o.jobId()).setAttempt(o.attempt());
                if (o.error() == null) {
                    a.setState(o.state());
                } else {
                    a.setErrorCode(o.error().code())
                            .setErrorMessage(o.error().getMessage())
                            .setErrorField(o.error().field());
                }
                answers.add(a);
            }
            return answers;
        });
    }

    @Override
    public Reservation touch(String jobId, int attempt, long ttrMs) {
        // a long cannot be left out over Dubbo: 0 asks for the default, as a missing ttrMs does over HTTP
        Long ttr = ttrMs == 0 ? null : ttrMs;
        return call("touch", () -> JobViews.reservation(pull.touch(caller().scope(), id(jobId), attempt, ttr)));
    }

    // ---- schedules (docs/api.md, "Schedules") ---------------------------------------------------

    @Override
    public ScheduleView putSchedule(String name, ScheduleDefinition d) {
        return call("putSchedule", () -> {
            String app = actingApp(caller());
            if (d == null) {
                throw HourglassException.invalid(null, "a schedule definition is required");
            }
            ScheduleSpec spec = new ScheduleSpec(
                    d.getService(),
                    d.getCron(),
                    d.getEvery(),
                    d.getTimeZone(),
                    d.getPayload() == null ? "null" : jsonText(d.getPayload()),
                    d.getAttributes(),
                    d.getStartAt() == null ? null : JobInputs.epochMillis("startAt", d.getStartAt()),
                    d.getEndAt() == null ? null : JobInputs.epochMillis("endAt", d.getEndAt()),
                    d.getMisfire(),
                    d.getCatchUpWindowMs(),
                    d.getOverlap(),
                    d.getPaused(),
                    d.getMaxAttempts(),
                    d.getTimeoutMs(),
                    d.getExpireAfterMs());
            return ScheduleViews.of(schedules.put(app, name, spec));
        });
    }

    @Override
    public ScheduleView getSchedule(String name) {
        return call("getSchedule", () -> ScheduleViews.of(schedules.get(actingApp(caller()), name)));
    }

    @Override
    public List<ScheduleView> listSchedules(String cursor, int limit) {
        return call(
                "listSchedules",
                () -> schedules.list(actingApp(caller()), cursor, FrontDoorRules.pageLimit(limit)).stream()
                        .map(ScheduleViews::of)
                        .toList());
    }

    @Override
    public void deleteSchedule(String name) {
        call("deleteSchedule", () -> {
            schedules.delete(actingApp(caller()), name);
            return null;
        });
    }

    @Override
    public ScheduleView pauseSchedule(String name) {
        return call("pauseSchedule", () -> ScheduleViews.of(schedules.pause(actingApp(caller()), name)));
    }

    @Override
    public ScheduleView resumeSchedule(String name) {
        return call("resumeSchedule", () -> ScheduleViews.of(schedules.resume(actingApp(caller()), name)));
    }

    @Override
    public JobView triggerSchedule(String name, String bizKey) {
        return call(
                "triggerSchedule",
                () -> JobViews.of(
                        schedules.trigger(actingApp(caller()), name, bizKey).job()));
    }

    // ---- the caller ------------------------------------------------------------------------------

    /**
     * The caller of the current call. The client address for the failed-authentication limit is
     * the connection's peer; a RATE_LIMITED leaves as a plain HourglassException (the client does
     * not have the node's subclass).
     */
    private Caller caller() {
        String token = RpcContext.getServerAttachment().getAttachment(TOKEN_ATTACHMENT);
        try {
            return tenants.authenticateToken(
                    token, RpcContext.getServiceContext().getRemoteHost());
        } catch (RateLimitedException e) {
            throw FrontDoorRules.toClient(e, "Dubbo authentication");
        }
    }

    /** The call's W3C trace context: the attachments {@code traceparent} and {@code tracestate}. */
    private static TraceContext traceContext() {
        return TraceHeaders.read(RpcContext.getServerAttachment()::getAttachment);
    }

    /** The app a call acts on: the attachment {@value #APP_ATTACHMENT}, by the rules HTTP applies too. */
    private String actingApp(Caller caller) {
        return rules.actingApp(
                caller, RpcContext.getServerAttachment().getAttachment(APP_ATTACHMENT), "attachment " + APP_ATTACHMENT);
    }

    // ---- input ---------------------------------------------------------------------------------

    private static long id(String jobId) {
        return FrontDoorRules.jobId(jobId);
    }

    /** Over HTTP the payload is JSON by construction; over Dubbo it is text that must be JSON. */
    private static JobSubmission withJsonPayload(JobSubmission s) {
        if (s.getPayload() == null) {
            return s;
        }
        String json = jsonText(s.getPayload());
        return new JobSubmission()
                .setService(s.getService())
                .setFireAt(s.getFireAt())
                .setDelayMs(s.getDelayMs())
                .setPayload(json)
                .setBizKey(s.getBizKey())
                .setAttributes(s.getAttributes())
                .setMaxAttempts(s.getMaxAttempts())
                .setTimeoutMs(s.getTimeoutMs())
                .setExpireAfterMs(s.getExpireAfterMs());
    }

    /** The payload as compact JSON (stored as HTTP stores it); INVALID_ARGUMENT when it is not JSON. */
    private static String jsonText(String payload) {
        try {
            JsonNode node = JSON.readTree(payload);
            if (node == null || node.isMissingNode()) {
                throw HourglassException.invalid("payload", "payload must be JSON text (an empty text is not)");
            }
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw HourglassException.invalid("payload", "payload must be JSON text: " + e.getOriginalMessage());
        }
    }

    // ---- errors --------------------------------------------------------------------------------

    /** Runs one call; a failure leaves as the client's HourglassException, as HTTP maps it. */
    private static <T> T call(String method, Supplier<T> body) {
        try {
            return body.get();
        } catch (RuntimeException e) {
            throw FrontDoorRules.toClient(e, "Dubbo " + method);
        }
    }
}
