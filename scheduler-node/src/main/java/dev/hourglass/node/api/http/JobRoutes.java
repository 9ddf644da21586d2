package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobChange;
import dev.hourglass.api.JobState;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.ResultReport;
import dev.hourglass.node.api.FrontDoorRules;
import dev.hourglass.node.api.TraceHeaders;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.JobPage;
import dev.hourglass.node.core.job.JobQuery;
import dev.hourglass.node.core.job.Names;
import dev.hourglass.node.core.port.JobWrites;
import dev.hourglass.node.core.schedule.Schedule;
import dev.hourglass.node.manage.JobManager;
import dev.hourglass.node.tenant.Caller;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** {@code /api/v1/jobs}: docs/api.md, "Jobs". */
public final class JobRoutes implements RouteGroup {
    private static final Set<String> SUBMIT_FIELDS = Set.of(
            "service",
            "fireAt",
            "delayMs",
            "payload",
            "bizKey",
            "attributes",
            "maxAttempts",
            "timeoutMs",
            "expireAfterMs",
            "app");
    private static final Set<String> PATCH_FIELDS = Set.of("fireAt", "delayMs", "payload", "attributes");
    private static final Set<String> RETRY_FIELDS = Set.of("fireAt", "delayMs");
    static final Set<String> RESULT_FIELDS = Set.of("attempt", "status", "message", "retryAfterMs", "delayMs");

    private final JobManager jobs;
    private final Callers callers;

    public JobRoutes(JobManager jobs, Callers callers) {
        this.jobs = jobs;
        this.callers = callers;
    }

    @Override
    public void register(RoutesConfig r) {
        r.post("/api/v1/jobs", this::submit);
        r.post("/api/v1/jobs/batch", this::submitBatch);
        r.get("/api/v1/jobs", this::search);
        r.get("/api/v1/jobs/{id}", ctx -> Respond.ok(ctx, Json.job(jobs.get(callers.of(ctx), id(ctx)))));
        r.patch("/api/v1/jobs/{id}", this::reschedule);
        r.delete("/api/v1/jobs/{id}", ctx -> Respond.ok(ctx, Json.job(jobs.cancel(callers.of(ctx), id(ctx)))));
        r.post("/api/v1/jobs/{id}/fire", ctx -> Respond.ok(ctx, Json.job(jobs.fireNow(callers.of(ctx), id(ctx)))));
        r.post("/api/v1/jobs/{id}/retry", this::retry);
        r.post("/api/v1/jobs/{id}/result", this::result);
        r.get("/api/v1/jobs/{id}/executions", ctx -> {
            List<JsonNode> items = new ArrayList<>();
            jobs.executions(callers.of(ctx), id(ctx)).forEach(e -> items.add(Json.execution(e)));
            Respond.ok(ctx, Json.items(items));
        });
    }

    private static long id(Context ctx) {
        return FrontDoorRules.jobId(ctx.pathParam("id"));
    }

    private void submit(Context ctx) {
        Caller caller = callers.of(ctx);
        JsonNode body = Json.parse(ctx.body());
        JsonFields f = JsonFields.of(body, SUBMIT_FIELDS);
        String app = callers.actingApp(ctx, caller, f.string("app"));
        JobWrites.Inserted inserted = jobs.submit(app, submission(f), TraceHeaders.read(ctx::header));
        Respond.json(ctx, inserted.created() ? 201 : 200, Json.job(inserted.job()));
    }

    private void submitBatch(Context ctx) {
        Caller caller = callers.of(ctx);
        JsonFields f = JsonFields.of(Json.parse(ctx.body()), Set.of("jobs", "app"));
        String app = callers.actingApp(ctx, caller, f.string("app"));
        JsonNode list = f.raw("jobs");
        if (list == null || !list.isArray()) {
            throw HourglassException.invalid("jobs", "jobs must be a list");
        }
        List<JobSubmission> submissions = new ArrayList<>(list.size());
        List<HourglassException> parseErrors = new ArrayList<>(list.size());
        for (JsonNode item : list) {
            try {
                submissions.add(submission(JsonFields.of(item, SUBMIT_FIELDS)));
                parseErrors.add(null);
            } catch (HourglassException e) {
                submissions.add(null);
                parseErrors.add(e);
            }
        }
        ObjectNode out = Json.object();
        ArrayNode results = out.putArray("results");
        for (JobManager.BatchOutcome r :
                jobs.submitBatch(app, submissions, parseErrors, TraceHeaders.read(ctx::header))) {
            results.add(
                    r.job() != null
                            ? Json.object().set("job", Json.job(r.job()))
                            : Json.error(
                                    r.error().code().name(),
                                    r.error().getMessage(),
                                    r.error().field()));
        }
        Respond.ok(ctx, out);
    }

    static JobSubmission submission(JsonFields f) {
        JobSubmission s = new JobSubmission()
                .setService(f.string("service"))
                .setFireAt(f.time("fireAt"))
                .setDelayMs(f.integer("delayMs"))
                .setPayload(f.has("payload") ? f.raw("payload").toString() : "null")
                .setBizKey(f.string("bizKey"))
                .setAttributes(f.stringMap("attributes"))
                .setMaxAttempts(f.int32("maxAttempts"))
                .setTimeoutMs(f.integer("timeoutMs"))
                .setExpireAfterMs(f.integer("expireAfterMs"));
        return s;
    }

    private void search(Context ctx) {
        Caller caller = callers.of(ctx);
        String app = callers.scope(ctx, caller);
        int limit = FrontDoorRules.pageLimit(QueryParams.integer(ctx, "limit"));
        String bizKey = Names.requireBizKey(ctx.queryParam("bizKey"));
        JobState state = null;
        if (ctx.queryParam("state") != null) {
            try {
                state = JobState.valueOf(ctx.queryParam("state").toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw HourglassException.invalid("state", "state must be one of " + List.of(JobState.values()));
            }
        }
        String cursor = QueryParams.jobCursor(ctx);
        String schedule = ctx.queryParam("schedule");
        JobPage page = jobs.search(new JobQuery(
                app,
                bizKey,
                // a schedule's jobs are those of its bizKeys (docs/api.md, "Schedules")
                schedule == null ? null : Schedule.bizKeyPrefix(Names.requireName("schedule", schedule)),
                state,
                ctx.queryParam("service"),
                QueryParams.time(ctx, "fireFrom"),
                QueryParams.time(ctx, "fireTo"),
                limit,
                cursor));
        List<JsonNode> items = new ArrayList<>();
        for (Job j : page.items()) {
            items.add(Json.job(j));
        }
        ObjectNode out = Json.items(items);
        out.put("nextCursor", page.nextCursor());
        Respond.ok(ctx, out);
    }

    private void reschedule(Context ctx) {
        Caller caller = callers.of(ctx);
        JsonFields f = JsonFields.of(Json.parse(ctx.body()), PATCH_FIELDS);
        JobChange change = new JobChange()
                .setFireAt(f.time("fireAt"))
                .setDelayMs(f.integer("delayMs"))
                .setPayload(f.has("payload") ? f.raw("payload").toString() : null)
                .setAttributes(f.stringMap("attributes"));
        Respond.ok(ctx, Json.job(jobs.reschedule(caller, id(ctx), change)));
    }

    private void retry(Context ctx) {
        Caller caller = callers.of(ctx);
        String body = ctx.body();
        Instant fireAt = null;
        Long delayMs = null;
        if (body != null && !body.isBlank()) {
            JsonFields f = JsonFields.of(Json.parse(body), RETRY_FIELDS);
            fireAt = f.time("fireAt");
            delayMs = f.integer("delayMs");
        }
        Respond.ok(ctx, Json.job(jobs.retry(caller, id(ctx), fireAt, delayMs)));
    }

    private void result(Context ctx) {
        Caller caller = callers.of(ctx);
        JsonFields f = JsonFields.of(Json.parse(ctx.body()), RESULT_FIELDS);
        Respond.ok(ctx, Json.job(jobs.reportResult(caller, id(ctx), resultReport(f))));
    }

    /** A result as the body of {@code /jobs/{id}/result} or an item of {@code /results} states it. */
    static ResultReport resultReport(JsonFields f) {
        Integer attempt = f.int32("attempt");
        if (attempt == null) {
            throw HourglassException.invalid("attempt", "attempt is required");
        }
        String status = f.string("status");
        CallbackStatus s;
        try {
            s = status == null ? null : CallbackStatus.valueOf(status);
        } catch (IllegalArgumentException e) {
            throw HourglassException.invalid("status", "status must be SUCCESS, RETRY, FAIL or RELEASE");
        }
        return new ResultReport()
                .setAttempt(attempt)
                .setStatus(s)
                .setMessage(f.string("message"))
                .setRetryAfterMs(f.integer("retryAfterMs"))
                .setDelayMs(f.integer("delayMs"));
    }
}
