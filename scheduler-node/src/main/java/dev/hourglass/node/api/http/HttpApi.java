package dev.hourglass.node.api.http;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.alert.AlertStore;
import dev.hourglass.node.bulk.AuditLog;
import dev.hourglass.node.bulk.BulkActions;
import dev.hourglass.node.catalog.CallbackAllowList;
import dev.hourglass.node.catalog.ServiceCommands;
import dev.hourglass.node.catalog.ServiceRepository;
import dev.hourglass.node.job.JobRepository;
import dev.hourglass.node.job.StoreUnavailableException;
import dev.hourglass.node.manage.JobManager;
import dev.hourglass.node.metrics.FiringHistory;
import dev.hourglass.node.metrics.FiringMetrics;
import dev.hourglass.node.tenant.AppRepository;
import dev.hourglass.node.tenant.DeliveryTargets;
import dev.hourglass.node.tenant.RateLimitedException;
import dev.hourglass.node.tenant.Tenants;
import io.javalin.Javalin;
import io.javalin.http.HttpResponseException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP front door (SPEC §3) on Javalin. Errors are mapped here, once: {@link HourglassException}
 * to its code's status; a database failure to 503 UNAVAILABLE (the request may be retried: nothing
 * was acknowledged); anything else to 500 INTERNAL. With a key store ({@code http.tls.*}) the port
 * speaks HTTPS only ({@link TlsKeyStore}).
 */
public final class HttpApi implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);

    private final Javalin app;
    private final boolean https;

    /**
     * Where and how the API listens.
     *
     * @param maxRequestBytes largest request body (413 beyond)
     * @param tls the HTTPS key store; null: plain HTTP
     */
    public record Listener(String host, int port, long maxRequestBytes, TlsKeyStore tls) {}

    public HttpApi(
            Listener listener,
            JobManager jobs,
            JobRepository jobRepository,
            ServiceCommands services,
            ServiceRepository serviceRepository,
            Tenants tenants,
            DeliveryTargets targets,
            NodeStatus node,
            FiringMetrics metrics,
            FiringHistory history,
            PrometheusMeterRegistry prometheus,
            AlertStore alerts,
            BulkActions bulk,
            AuditLog audit,
            AppRepository apps,
            CallbackAllowList allowList,
            Clock clock) {
        Callers callers = new Callers(tenants);
        JobRoutes jobRoutes = new JobRoutes(jobs, callers);
        ServiceRoutes serviceRoutes = new ServiceRoutes(services, serviceRepository, callers);
        AppRoutes appRoutes = new AppRoutes(tenants, targets, callers, apps, allowList);
        OpsRoutes opsRoutes = new OpsRoutes(node, jobRepository, metrics, history, prometheus, callers);
        AlertRoutes alertRoutes = new AlertRoutes(alerts, callers, clock);
        BulkRoutes bulkRoutes = new BulkRoutes(bulk, audit, callers);
        this.https = listener.tls() != null;
        this.app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.startup.showOldJavalinVersionWarning = false;
            cfg.jetty.host = listener.host();
            cfg.jetty.port = listener.port();
            if (https) { // Javalin then adds no plain connector of its own
                cfg.jetty.addConnector(
                        (server, http) -> listener.tls().connector(server, http, listener.host(), listener.port()));
            }
            cfg.http.maxRequestSize = listener.maxRequestBytes();
            cfg.http.defaultContentType = "application/json";
            jobRoutes.register(cfg.routes);
            serviceRoutes.register(cfg.routes);
            appRoutes.register(cfg.routes);
            opsRoutes.register(cfg.routes);
            alertRoutes.register(cfg.routes);
            bulkRoutes.register(cfg.routes);
            cfg.routes.exception(HourglassException.class, (e, ctx) -> {
                if (e instanceof RateLimitedException limited) {
                    ctx.header("Retry-After", Long.toString(limited.retryAfterSeconds()));
                }
                Respond.json(ctx, e.code().httpStatus(), Json.error(e.code().name(), e.getMessage(), e.field()));
            });
            cfg.routes.exception(HttpResponseException.class, (e, ctx) -> {
                ErrorCode code = e.getStatus() == 413 ? ErrorCode.PAYLOAD_TOO_LARGE : codeOf(e.getStatus());
                Respond.json(ctx, e.getStatus(), Json.error(code.name(), e.getMessage(), null));
            });
            cfg.routes.exception(StoreUnavailableException.class, (e, ctx) -> {
                LOG.warn("database unavailable on {} {}: {}", ctx.method(), ctx.path(), e.getMessage());
                Respond.json(ctx, 503, Json.error(ErrorCode.UNAVAILABLE.name(), "the database is not available", null));
            });
            cfg.routes.exception(Exception.class, (e, ctx) -> {
                LOG.error("unexpected error on {} {}", ctx.method(), ctx.path(), e);
                Respond.json(ctx, 500, Json.error(ErrorCode.INTERNAL.name(), "internal error", null));
            });
        });
    }

    private static ErrorCode codeOf(int status) {
        for (ErrorCode c : ErrorCode.values()) {
            if (c.httpStatus() == status) {
                return c;
            }
        }
        return ErrorCode.INVALID_ARGUMENT;
    }

    public HttpApi start() {
        app.start();
        return this;
    }

    public int port() {
        return app.port();
    }

    /** {@code https} with a key store, else {@code http}. */
    public String scheme() {
        return https ? "https" : "http";
    }

    @Override
    public void close() {
        app.stop();
    }
}
