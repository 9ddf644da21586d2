package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.catalog.CallbackAllowList;
import dev.hourglass.node.core.port.AppRepository;
import dev.hourglass.node.core.service.TargetGrants;
import dev.hourglass.node.tenant.DeliveryTargets;
import dev.hourglass.node.tenant.Tenants;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code /api/v1/apps}: docs/api.md, "Apps (admin token)", and each app's delivery target grants
 * ({@code /api/v1/apps/{name}/targets}, docs/security.md).
 */
public final class AppRoutes implements RouteGroup {
    private static final Set<String> TARGET_FIELDS = Set.of("app", "kafkaTopics", "dubboGroups", "dubboDefaultGroup");

    private final Tenants tenants;
    private final DeliveryTargets targets;
    private final Callers callers;
    private final AppRepository apps;
    private final CallbackAllowList allowList;

    public AppRoutes(
            Tenants tenants,
            DeliveryTargets targets,
            Callers callers,
            AppRepository apps,
            CallbackAllowList allowList) {
        this.tenants = tenants;
        this.targets = targets;
        this.callers = callers;
        this.apps = apps;
        this.allowList = allowList;
    }

    @Override
    public void register(RoutesConfig r) {
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
        r.get("/api/v1/apps/{name}/targets", ctx -> {
            callers.admin(ctx);
            String app = ctx.pathParam("name");
            Respond.ok(ctx, grants(app, targets.grants(app)));
        });
        r.put("/api/v1/apps/{name}/targets", this::putTargets);
        r.get("/api/v1/apps/{name}/alert-webhook", ctx -> {
            callers.admin(ctx);
            String app = existingApp(ctx.pathParam("name"));
            Respond.ok(ctx, webhook(app, apps.alertWebhook(app).orElse(null)));
        });
        r.put("/api/v1/apps/{name}/alert-webhook", ctx -> {
            callers.admin(ctx);
            String app = existingApp(ctx.pathParam("name"));
            JsonFields f = JsonFields.of(Json.parse(ctx.body()), Set.of("webhook"));
            String url = f.string("webhook");
            if (url != null) {
                allowList.requireHttpUrl("webhook", url);
            }
            apps.setAlertWebhook(app, url);
            Respond.ok(ctx, webhook(app, url));
        });
    }

    /** Replaces the app's grants; a GET's answer can be sent back as it is ({@code app} must match). */
    private void putTargets(Context ctx) {
        callers.admin(ctx);
        String app = ctx.pathParam("name");
        JsonFields f = JsonFields.of(Json.parse(ctx.body()), TARGET_FIELDS);
        String bodyApp = f.string("app");
        if (bodyApp != null && !bodyApp.equals(app)) {
            throw HourglassException.invalid("app", "app in the body differs from the path");
        }
        TargetGrants wanted = TargetGrants.of(
                f.stringList("kafkaTopics"),
                f.stringList("dubboGroups"),
                Boolean.TRUE.equals(f.bool("dubboDefaultGroup")));
        Respond.ok(ctx, grants(app, targets.replaceGrants(app, wanted)));
    }

    private String existingApp(String app) {
        if (!tenants.exists(app)) {
            throw HourglassException.notFound("app " + app + " not found");
        }
        return app;
    }

    private static ObjectNode webhook(String app, String url) {
        return Json.object().put("app", app).put("webhook", url);
    }

    private static ObjectNode grants(String app, TargetGrants g) {
        ObjectNode n = Json.object().put("app", app);
        g.kafkaTopics().forEach(n.putArray("kafkaTopics")::add);
        g.dubboGroups().forEach(n.putArray("dubboGroups")::add);
        return n.put("dubboDefaultGroup", g.dubboDefaultGroup());
    }

    private static ObjectNode issued(Tenants.IssuedToken t) {
        return Json.object().put("name", t.app()).put("tokenId", t.tokenId()).put("token", t.token());
    }
}
