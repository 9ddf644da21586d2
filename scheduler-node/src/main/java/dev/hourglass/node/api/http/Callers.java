package dev.hourglass.node.api.http;

import dev.hourglass.node.api.FrontDoorRules;
import dev.hourglass.node.tenant.Caller;
import dev.hourglass.node.tenant.Tenants;
import io.javalin.http.Context;

/**
 * Who calls, from the {@code Authorization} header, and which app a request acts on ({@code ?app=},
 * or an {@code "app"} in the body), by the {@link FrontDoorRules} Dubbo applies too. The client
 * address for the failed-authentication limit is the connection's peer ({@code ctx.ip()}): behind
 * a reverse proxy that is the proxy (see docs/security.md).
 */
public final class Callers {
    private static final String HOW_TO_NAME = "?app=NAME";

    private final Tenants tenants;
    private final FrontDoorRules rules;

    public Callers(Tenants tenants, FrontDoorRules rules) {
        this.tenants = tenants;
        this.rules = rules;
    }

    Caller of(Context ctx) {
        return tenants.authenticate(ctx.header("Authorization"), ctx.ip());
    }

    Caller admin(Context ctx) {
        return FrontDoorRules.requireAdmin(of(ctx));
    }

    /** The app a request acts on: {@code ?app=}, else {@code bodyApp} (see {@link FrontDoorRules#actingApp}). */
    String actingApp(Context ctx, Caller caller, String bodyApp) {
        String named = ctx.queryParam("app") != null ? ctx.queryParam("app") : bodyApp;
        return rules.actingApp(caller, named, HOW_TO_NAME);
    }

    /** Like {@link #actingApp} but the admin may leave the app out to mean every app (null). */
    String scope(Context ctx, Caller caller) {
        return rules.scope(caller, ctx.queryParam("app"), HOW_TO_NAME);
    }
}
