package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.api.AlertJson;
import dev.hourglass.node.api.FrontDoorRules;
import dev.hourglass.node.core.alert.Alert;
import dev.hourglass.node.core.port.AlertStore;
import dev.hourglass.node.tenant.Caller;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code /api/v1/alerts} (docs/alerts.md): the alert history, newest first in cursor pages, and the
 * acknowledge action. An app token sees and acknowledges its own app's alerts only.
 */
public final class AlertRoutes implements RouteGroup {
    private final AlertStore alerts;
    private final Callers callers;
    private final Clock clock;

    public AlertRoutes(AlertStore alerts, Callers callers, Clock clock) {
        this.alerts = alerts;
        this.callers = callers;
        this.clock = clock;
    }

    @Override
    public void register(RoutesConfig r) {
        r.get("/api/v1/alerts", this::search);
        r.post("/api/v1/alerts/{id}/ack", this::acknowledge);
    }

    private void search(Context ctx) {
        Caller caller = callers.of(ctx);
        String app = callers.scope(ctx, caller);
        int limit = FrontDoorRules.pageLimit(QueryParams.integer(ctx, "limit"));
        Alert.State state = null;
        if (ctx.queryParam("state") != null) {
            try {
                state = Alert.State.valueOf(ctx.queryParam("state").toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw HourglassException.invalid("state", "state must be one of " + List.of(Alert.State.values()));
            }
        }
        String cursor = QueryParams.cursor(ctx, "");
        AlertStore.AlertPage page = alerts.search(new AlertStore.AlertQuery(
                app,
                ctx.queryParam("service"),
                state,
                QueryParams.time(ctx, "firedFrom"),
                QueryParams.time(ctx, "firedTo"),
                limit,
                cursor == null ? null : Long.parseLong(cursor)));
        List<JsonNode> items = new ArrayList<>();
        page.items().forEach(a -> items.add(AlertJson.withHistory(a)));
        ObjectNode out = Json.items(items);
        out.put("nextCursor", page.nextBeforeId() == null ? null : Long.toString(page.nextBeforeId()));
        Respond.ok(ctx, out);
    }

    private void acknowledge(Context ctx) {
        Caller caller = callers.of(ctx);
        long id;
        try {
            id = Long.parseLong(ctx.pathParam("id"));
        } catch (NumberFormatException e) {
            throw HourglassException.invalid("id", "id must be an alert id");
        }
        String by = caller.isAdmin() ? "admin" : "app:" + caller.app();
        Alert a = alerts.acknowledge(id, caller.isAdmin() ? null : caller.app(), by, clock.millis())
                .orElseThrow(() -> HourglassException.notFound("alert " + id + " not found"));
        Respond.ok(ctx, AlertJson.withHistory(a));
    }
}
