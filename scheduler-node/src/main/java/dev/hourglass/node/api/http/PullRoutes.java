package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.ReserveRequest;
import dev.hourglass.api.ResultReport;
import dev.hourglass.node.api.FrontDoorRules;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.ReservationStore;
import dev.hourglass.node.core.service.PullLimits;
import dev.hourglass.node.manage.JobManager;
import dev.hourglass.node.pull.PullConsumers;
import dev.hourglass.node.tenant.Caller;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Pull consumers: docs/api.md, "Pull consumers". */
public final class PullRoutes implements RouteGroup {
    private static final Set<String> RESERVE_FIELDS = Set.of("services", "max", "ttrMs", "waitMs", "app");
    private static final Set<String> TOUCH_FIELDS = Set.of("attempt", "ttrMs");
    private static final Set<String> RESULT_ITEM_FIELDS;

    static {
        Set<String> fields = new java.util.HashSet<>(JobRoutes.RESULT_FIELDS);
        fields.add("jobId");
        RESULT_ITEM_FIELDS = Set.copyOf(fields);
    }

    private final PullConsumers pull;
    private final JobManager jobs;
    private final Callers callers;
    private final Clock clock;

    public PullRoutes(PullConsumers pull, JobManager jobs, Callers callers, Clock clock) {
        this.pull = pull;
        this.jobs = jobs;
        this.callers = callers;
        this.clock = clock;
    }

    @Override
    public void register(RoutesConfig r) {
        r.post("/api/v1/reserve", this::reserve);
        r.post("/api/v1/results", this::results);
        r.post("/api/v1/jobs/{id}/touch", this::touch);
        r.get("/api/v1/services/{name}/queue", this::queue);
    }

    /** Answers when the reserve does: at once, or when a job comes or the wait runs out (no thread held). */
    private void reserve(Context ctx) {
        Caller caller = callers.of(ctx);
        JsonFields f = JsonFields.of(Json.parse(ctx.body()), RESERVE_FIELDS);
        String app = callers.actingApp(ctx, caller, f.string("app"));
        ReserveRequest request = new ReserveRequest()
                .setServices(f.stringList("services"))
                .setMax(f.int32("max"))
                .setTtrMs(f.integer("ttrMs"))
                .setWaitMs(f.integer("waitMs"));
        var reserved = pull.reserve(app, request);
        if (reserved.isDone() && !reserved.isCompletedExceptionally()) { // a failure: through the future
            Respond.ok(ctx, reservations(reserved.join()));
            return;
        }
        ctx.future(() -> reserved.thenAccept(jobs -> Respond.ok(ctx, reservations(jobs))));
    }

    private static ObjectNode reservations(List<Job> reserved) {
        List<JsonNode> items = new ArrayList<>(reserved.size());
        reserved.forEach(j -> items.add(reservation(j)));
        return Json.items(items);
    }

    /** A reserved job: the job, the attempt the reservation is, and its deadline. */
    static ObjectNode reservation(Job job) {
        ObjectNode n = Json.job(job);
        n.put("attempt", job.attempts());
        n.put("deadline", Json.time(job.dueAt()));
        return n;
    }

    private void results(Context ctx) {
        Caller caller = callers.of(ctx);
        JsonFields f = JsonFields.of(Json.parse(ctx.body()), Set.of("results"));
        JsonNode list = f.raw("results");
        if (list == null || !list.isArray() || list.isEmpty() || list.size() > PullLimits.MAX_RESULTS) {
            throw HourglassException.invalid(
                    "results", "results must be a list of 1.." + PullLimits.MAX_RESULTS + " results");
        }
        // an item that cannot be read is refused alone, like the others it does not stop
        List<ResultReport> reports = new ArrayList<>(list.size());
        List<HourglassException> unreadable = new ArrayList<>(list.size());
        for (JsonNode item : list) {
            try {
                JsonFields itemFields = JsonFields.of(item, RESULT_ITEM_FIELDS);
                reports.add(JobRoutes.resultReport(itemFields).setJobId(itemFields.string("jobId")));
                unreadable.add(null);
            } catch (HourglassException e) {
                reports.add(null);
                unreadable.add(e);
            }
        }
        List<ResultReport> readable =
                reports.stream().filter(java.util.Objects::nonNull).toList();
        List<JobManager.ResultOutcome> outcomes = readable.isEmpty() ? List.of() : jobs.reportResults(caller, readable);
        ObjectNode out = Json.object();
        ArrayNode answers = out.putArray("results");
        int next = 0;
        for (int i = 0; i < reports.size(); i++) {
            ObjectNode answer = Json.object();
            JsonNode item = list.get(i);
            if (reports.get(i) == null) {
                HourglassException e = unreadable.get(i);
                answer.set("jobId", item.isObject() ? item.get("jobId") : null);
                answer.set("attempt", item.isObject() ? item.get("attempt") : null);
                answer.setAll(Json.error(e.code().name(), e.getMessage(), e.field()));
            } else {
                JobManager.ResultOutcome o = outcomes.get(next++);
                answer.put("jobId", o.jobId());
                answer.put("attempt", o.attempt());
                if (o.error() == null) {
                    answer.put("state", o.state().name());
                } else {
                    answer.setAll(Json.error(
                            o.error().code().name(),
                            o.error().getMessage(),
                            o.error().field()));
                }
            }
            answers.add(answer);
        }
        Respond.ok(ctx, out);
    }

    private void touch(Context ctx) {
        Caller caller = callers.of(ctx);
        JsonFields f = JsonFields.of(Json.parse(ctx.body()), TOUCH_FIELDS);
        long id = FrontDoorRules.jobId(ctx.pathParam("id"));
        Respond.ok(ctx, reservation(pull.touch(caller.scope(), id, f.int32("attempt"), f.integer("ttrMs"))));
    }

    private void queue(Context ctx) {
        Caller caller = callers.of(ctx);
        String app = callers.actingApp(ctx, caller, null);
        ReservationStore.QueueView q = pull.queue(app, ctx.pathParam("name"), QueryParams.integer(ctx, "peek"));
        ObjectNode out = Json.object();
        out.put("ready", q.ready());
        out.put("reserved", q.reserved());
        out.put("delayed", q.delayed());
        out.put(
                "oldestReadyAgeMs",
                q.oldestReadyDueAt() == null ? 0 : Math.max(0, clock.millis() - q.oldestReadyDueAt()));
        if (QueryParams.integer(ctx, "peek") != null) {
            ArrayNode items = out.putArray("items");
            q.next().forEach(j -> items.add(Json.job(j)));
        }
        Respond.ok(ctx, out);
    }
}
