package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.api.FrontDoorRules;
import dev.hourglass.node.core.port.JobWrites;
import dev.hourglass.node.core.schedule.ScheduleSpec;
import dev.hourglass.node.schedule.ScheduleCommands;
import dev.hourglass.node.tenant.Caller;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** {@code /api/v1/schedules}: docs/api.md, "Schedules". */
public final class ScheduleRoutes implements RouteGroup {
    private static final Set<String> FIELDS = Set.of(
            "name",
            "app",
            "service",
            "cron",
            "every",
            "timeZone",
            "payload",
            "attributes",
            "startAt",
            "endAt",
            "misfire",
            "catchUpWindowMs",
            "overlap",
            "paused",
            "maxAttempts",
            "timeoutMs",
            "expireAfterMs",
            // what a read shows: a schedule read and sent back as it is is accepted
            "pausedAt",
            "shard",
            "generation",
            "nextFireTimes",
            "lastOccurrence",
            "createdAt",
            "updatedAt");

    private final ScheduleCommands commands;
    private final Callers callers;

    public ScheduleRoutes(ScheduleCommands commands, Callers callers) {
        this.commands = commands;
        this.callers = callers;
    }

    @Override
    public void register(RoutesConfig r) {
        r.put("/api/v1/schedules/{name}", this::put);
        r.get("/api/v1/schedules", this::list);
        r.get("/api/v1/schedules/{name}", ctx -> Respond.ok(ctx, Json.schedule(commands.get(app(ctx), name(ctx)))));
        r.delete("/api/v1/schedules/{name}", ctx -> {
            commands.delete(app(ctx), name(ctx));
            ctx.status(204);
        });
        r.post(
                "/api/v1/schedules/{name}/pause",
                ctx -> Respond.ok(ctx, Json.schedule(commands.pause(app(ctx), name(ctx)))));
        r.post(
                "/api/v1/schedules/{name}/resume",
                ctx -> Respond.ok(ctx, Json.schedule(commands.resume(app(ctx), name(ctx)))));
        r.post("/api/v1/schedules/{name}/trigger", this::trigger);
    }

    private String app(Context ctx) {
        return callers.actingApp(ctx, callers.of(ctx), null);
    }

    private static String name(Context ctx) {
        return ctx.pathParam("name");
    }

    private void put(Context ctx) {
        Caller caller = callers.of(ctx);
        JsonFields f = JsonFields.of(Json.parse(ctx.body()), FIELDS);
        String app = callers.actingApp(ctx, caller, f.string("app"));
        String name = name(ctx);
        String bodyName = f.string("name");
        if (bodyName != null && !bodyName.equals(name)) {
            throw HourglassException.invalid("name", "name in the body differs from the path");
        }
        ScheduleSpec spec = new ScheduleSpec(
                f.string("service"),
                f.string("cron"),
                f.string("every"),
                f.string("timeZone"),
                f.has("payload") ? f.raw("payload").toString() : "null",
                f.stringMap("attributes"),
                epochMillis(f, "startAt"),
                epochMillis(f, "endAt"),
                f.string("misfire"),
                f.integer("catchUpWindowMs"),
                f.string("overlap"),
                f.bool("paused"),
                f.int32("maxAttempts"),
                f.integer("timeoutMs"),
                f.integer("expireAfterMs"));
        Respond.ok(ctx, Json.schedule(commands.put(app, name, spec)));
    }

    private static Long epochMillis(JsonFields f, String field) {
        Instant t = f.time(field);
        return t == null ? null : t.toEpochMilli();
    }

    private void list(Context ctx) {
        Caller caller = callers.of(ctx);
        String app = callers.scope(ctx, caller);
        int limit = FrontDoorRules.pageLimit(QueryParams.integer(ctx, "limit"));
        List<ScheduleCommands.View> page = commands.list(app, ctx.queryParam("cursor"), limit);
        List<JsonNode> items = new ArrayList<>();
        page.forEach(v -> items.add(Json.schedule(v)));
        ObjectNode out = Json.items(items);
        out.put(
                "nextCursor",
                page.size() < limit
                        ? null
                        : page.get(page.size() - 1).schedule().key());
        Respond.ok(ctx, out);
    }

    private void trigger(Context ctx) {
        Caller caller = callers.of(ctx);
        String app = callers.actingApp(ctx, caller, null);
        String body = ctx.body();
        String bizKey = null;
        if (!body.isBlank()) {
            bizKey = JsonFields.of(Json.parse(body), Set.of("bizKey")).string("bizKey");
        }
        JobWrites.Inserted inserted = commands.trigger(app, name(ctx), bizKey);
        Respond.json(ctx, inserted.created() ? 201 : 200, Json.job(inserted.job()));
    }
}
