package dev.hourglass.node.api.http;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.tenant.Caller;
import dev.hourglass.node.tenant.Tenants;
import io.javalin.http.Context;

/**
 * Who calls, from the {@code Authorization} header, and which app a request acts on. The client
 * address for the failed-authentication limit is the connection's peer ({@code ctx.ip()}):
 * behind a reverse proxy that is the proxy (see docs/security.md).
 */
final class Callers {
    private final Tenants tenants;

    Callers(Tenants tenants) {
        this.tenants = tenants;
    }

    Caller of(Context ctx) {
        return tenants.authenticate(ctx.header("Authorization"), ctx.ip());
    }

    Caller admin(Context ctx) {
        Caller caller = of(ctx);
        if (!caller.isAdmin()) {
            throw new HourglassException(ErrorCode.PERMISSION_DENIED, "this needs the admin token");
        }
        return caller;
    }

    /**
     * The app a request acts on: the token's own app, or for the admin the {@code app} query
     * parameter (or {@code bodyApp}). An app token naming another app is PERMISSION_DENIED.
     */
    String actingApp(Context ctx, Caller caller, String bodyApp) {
        String named = ctx.queryParam("app") != null ? ctx.queryParam("app") : bodyApp;
        if (!caller.isAdmin()) {
            if (named != null && !named.equals(caller.app())) {
                throw new HourglassException(ErrorCode.PERMISSION_DENIED, "an app token acts on its own app only");
            }
            return caller.app();
        }
        if (named == null) {
            throw HourglassException.invalid("app", "the admin names the app: ?app=NAME");
        }
        if (!tenants.exists(named)) {
            throw HourglassException.notFound("app " + named + " not found");
        }
        return named;
    }

    /** Like {@link #actingApp} but the admin may leave the app out to mean every app (null). */
    String scope(Context ctx, Caller caller) {
        if (caller.isAdmin() && ctx.queryParam("app") == null) {
            return null;
        }
        return actingApp(ctx, caller, null);
    }
}
