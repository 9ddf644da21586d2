package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.catalog.ServiceCommands;
import dev.hourglass.node.core.port.ServiceRepository;
import dev.hourglass.node.core.service.AlertPolicy;
import dev.hourglass.node.core.service.ServiceSpec;
import dev.hourglass.node.tenant.Caller;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** {@code /api/v1/services}: docs/api.md, "Services". */
public final class ServiceRoutes implements RouteGroup {
    private static final Set<String> FIELDS = Set.of(
            "name",
            "app",
            "protocol",
            "topic",
            "url",
            "dubboGroup",
            "dubboVersion",
            "maxAttempts",
            "timeoutMs",
            "backoff",
            "ackMode",
            "maxInFlight",
            "signingSecret",
            "alert",
            "rateLimit",
            "deadLetter",
            "deadLetterOn",
            // read-only: a service read and sent back keeps its pause (pause and resume change it)
            "paused",
            "pausedAt",
            "pausedBy",
            "resumedAt",
            "createdAt",
            "updatedAt");

    private final ServiceCommands commands;
    private final ServiceRepository repository;
    private final Callers callers;

    public ServiceRoutes(ServiceCommands commands, ServiceRepository repository, Callers callers) {
        this.commands = commands;
        this.repository = repository;
        this.callers = callers;
    }

    @Override
    public void register(RoutesConfig r) {
        r.put("/api/v1/services/{name}", this::put);
        r.get("/api/v1/services", this::list);
        r.get("/api/v1/services/{name}", ctx -> {
            Caller caller = callers.of(ctx);
            String app = callers.actingApp(ctx, caller, null);
            Respond.ok(ctx, Json.service(commands.get(app, ctx.pathParam("name"))));
        });
        r.post("/api/v1/services/{name}/pause", ctx -> setPaused(ctx, true));
        r.post("/api/v1/services/{name}/resume", ctx -> setPaused(ctx, false));
        r.delete("/api/v1/services/{name}", ctx -> {
            Caller caller = callers.of(ctx);
            String app = callers.actingApp(ctx, caller, null);
            commands.delete(app, ctx.pathParam("name"));
            ctx.status(204);
        });
    }

    /** Pause and resume: app or admin, idempotent; the answer is the service as it is now. */
    private void setPaused(Context ctx, boolean paused) {
        Caller caller = callers.of(ctx);
        String app = callers.actingApp(ctx, caller, null);
        Respond.ok(ctx, Json.service(commands.setPaused(caller, app, ctx.pathParam("name"), paused)));
    }

    private void put(Context ctx) {
        Caller caller = callers.of(ctx);
        JsonFields f = JsonFields.of(Json.parse(ctx.body()), FIELDS);
        String app = callers.actingApp(ctx, caller, f.string("app"));
        String name = ctx.pathParam("name");
        String bodyName = f.string("name");
        if (bodyName != null && !bodyName.equals(name)) {
            throw dev.hourglass.api.HourglassException.invalid("name", "name in the body differs from the path");
        }
        JsonFields backoff = f.object("backoff", Set.of("initialMs", "multiplier", "maxMs"));
        JsonFields alert = f.object(
                "alert", Set.of("failures", "windowSeconds", "consecutiveFailures", "overdueSeconds", "webhook"));
        AlertPolicy alertPolicy = null;
        if (alert != null) {
            Integer failures = alert.int32("failures");
            Integer window = alert.int32("windowSeconds");
            alertPolicy = new AlertPolicy(
                    failures == null ? 10 : failures,
                    window == null ? 300 : window,
                    alert.int32("consecutiveFailures"),
                    alert.int32("overdueSeconds"),
                    alert.string("webhook"));
        }
        JsonFields rate = f.object("rateLimit", Set.of("perSecond", "burst"));
        ServiceSpec spec = new ServiceSpec(
                f.string("protocol"),
                f.string("topic"),
                f.string("url"),
                f.string("dubboGroup"),
                f.string("dubboVersion"),
                f.int32("maxAttempts"),
                f.integer("timeoutMs"),
                backoff == null ? null : backoff.integer("initialMs"),
                backoff == null ? null : backoff.decimal("multiplier"),
                backoff == null ? null : backoff.integer("maxMs"),
                f.string("ackMode"),
                f.int32("maxInFlight"),
                f.string("signingSecret"),
                alertPolicy,
                rate == null ? null : rate.int32("perSecond"),
                rate == null ? null : rate.int32("burst"),
                rate != null,
                f.string("deadLetter"),
                f.stringList("deadLetterOn"));
        Respond.ok(ctx, Json.service(commands.put(app, name, spec)));
    }

    private void list(Context ctx) {
        Caller caller = callers.of(ctx);
        String app = callers.scope(ctx, caller);
        List<JsonNode> items = new ArrayList<>();
        repository.list(app).forEach(s -> items.add(Json.service(s)));
        Respond.ok(ctx, Json.items(items));
    }
}
