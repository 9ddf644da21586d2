package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.node.tenant.Tenants;
import io.javalin.config.RoutesConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** {@code /api/v1/apps}: SPEC §3 "Apps" (admin token). */
final class AppRoutes {
    private final Tenants tenants;
    private final Callers callers;

    AppRoutes(Tenants tenants, Callers callers) {
        this.tenants = tenants;
        this.callers = callers;
    }

    void register(RoutesConfig r) {
        r.post("/api/v1/apps", ctx -> {
            callers.admin(ctx);
            JsonFields f = JsonFields.of(Json.parse(ctx.body()), Set.of("name"));
            Respond.json(ctx, 201, issued(tenants.createApp(f.string("name"))));
        });
        r.get("/api/v1/apps", ctx -> {
            callers.admin(ctx);
            List<JsonNode> items = new ArrayList<>();
            tenants.listApps().forEach(name -> items.add(Json.object().put("name", name)));
            Respond.ok(ctx, Json.items(items));
        });
        r.post("/api/v1/apps/{name}/tokens", ctx -> {
            callers.admin(ctx);
            Respond.json(ctx, 201, issued(tenants.issueToken(ctx.pathParam("name"))));
        });
        r.delete("/api/v1/apps/{name}/tokens/{tokenId}", ctx -> {
            callers.admin(ctx);
            tenants.revokeToken(ctx.pathParam("name"), ctx.pathParam("tokenId"));
            ctx.status(204);
        });
    }

    private static ObjectNode issued(Tenants.IssuedToken t) {
        return Json.object().put("name", t.app()).put("tokenId", t.tokenId()).put("token", t.token());
    }
}
