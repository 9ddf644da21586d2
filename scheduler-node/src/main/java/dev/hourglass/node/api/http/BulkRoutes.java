package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.node.api.FrontDoorRules;
import dev.hourglass.node.bulk.BulkActions;
import dev.hourglass.node.core.job.Names;
import dev.hourglass.node.core.port.AuditLog;
import dev.hourglass.node.tenant.Caller;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code POST /api/v1/jobs/bulk} (cancel or retry every job a filter matches, bounded, audited)
 * and {@code GET /api/v1/audit} (what was done); docs/operations.md, "Bulk actions".
 */
public final class BulkRoutes implements RouteGroup {
    private static final Set<String> FIELDS =
            Set.of("action", "app", "service", "bizKeyPrefix", "state", "fireFrom", "fireTo", "max", "dryRun");

    private final BulkActions bulk;
    private final AuditLog audit;
    private final Callers callers;

    public BulkRoutes(BulkActions bulk, AuditLog audit, Callers callers) {
        this.bulk = bulk;
        this.audit = audit;
        this.callers = callers;
    }

    @Override
    public void register(RoutesConfig r) {
        r.post("/api/v1/jobs/bulk", this::run);
        r.get("/api/v1/audit", this::list);
    }

    private void run(Context ctx) {
        Caller caller = callers.of(ctx);
        JsonNode body = Json.parse(ctx.body());
        JsonFields f = JsonFields.of(body, FIELDS);
        String app = callers.actingApp(ctx, caller, f.string("app"));
        BulkActions.Action action = enumOf(BulkActions.Action.class, "action", required(f.string("action"), "action"));
        String prefix = f.string("bizKeyPrefix");
        if (prefix != null && !prefix.matches("[A-Za-z0-9._:-]{1,128}")) {
            throw HourglassException.invalid(
                    "bizKeyPrefix", "bizKeyPrefix must be 1..128 characters of [A-Za-z0-9._:-], as bizKeys are");
        }
        String service = f.string("service");
        if (service != null) {
            Names.requireName("service", service);
        }
        String state = f.string("state");
        Instant from = f.time("fireFrom");
        Instant to = f.time("fireTo");
        Integer max = f.int32("max");
        boolean dryRun = Boolean.TRUE.equals(f.bool("dryRun"));
        // what the audit keeps: the validated fields only, so its size is bounded
        ObjectNode request = Json.object();
        request.put("action", action.name());
        request.put("service", service);
        request.put("bizKeyPrefix", prefix);
        request.put("state", state == null ? null : state.toUpperCase(Locale.ROOT));
        request.put("fireFrom", from == null ? null : Json.time(from.toEpochMilli()));
        request.put("fireTo", to == null ? null : Json.time(to.toEpochMilli()));
        request.put("max", max);
        BulkActions.Outcome out = bulk.run(
                caller,
                app,
                action,
                new BulkActions.Filter(
                        service,
                        prefix,
                        state == null ? null : enumOf(JobState.class, "state", state),
                        from == null ? null : from.toEpochMilli(),
                        to == null ? null : to.toEpochMilli()),
                max == null ? 10_000 : max,
                dryRun,
                request.toString());
        ObjectNode n = Json.object();
        n.put("action", out.action().name());
        n.put("state", out.state().name());
        n.put("dryRun", out.dryRun());
        n.put("matched", out.matched());
        n.put("changed", out.changed());
        n.put("skipped", out.skipped());
        n.put("more", out.more());
        n.put("auditId", out.auditId() == null ? null : Long.toString(out.auditId()));
        Respond.ok(ctx, n);
    }

    private void list(Context ctx) {
        Caller caller = callers.of(ctx);
        String app = callers.scope(ctx, caller);
        int limit = FrontDoorRules.pageLimit(QueryParams.integer(ctx, "limit"));
        String cursor = QueryParams.cursor(ctx, "");
        List<AuditLog.Entry> rows = audit.list(app, limit + 1, cursor == null ? null : Long.parseLong(cursor));
        List<JsonNode> items = new ArrayList<>();
        rows.stream().limit(limit).forEach(e -> {
            ObjectNode n = Json.object();
            n.put("id", Long.toString(e.id()));
            n.put("at", Json.time(e.at()));
            n.put("actor", e.actor());
            n.put("app", e.app());
            n.put("action", e.action());
            n.set("request", Json.parse(e.request()));
            n.put("matched", e.matched());
            n.put("changed", e.changed());
            n.put("skipped", e.skipped());
            n.put("error", e.error());
            items.add(n);
        });
        ObjectNode out = Json.items(items);
        out.put(
                "nextCursor",
                rows.size() > limit ? Long.toString(rows.get(limit - 1).id()) : null);
        Respond.ok(ctx, out);
    }

    private static String required(String value, String field) {
        if (value == null) {
            throw HourglassException.invalid(field, field + " is required");
        }
        return value;
    }

    private static <E extends Enum<E>> E enumOf(Class<E> type, String field, String value) {
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw HourglassException.invalid(field, field + " must be one of " + List.of(type.getEnumConstants()));
        }
    }
}
