package dev.hourglass.node.api.http;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.api.FrontDoorRules;
import dev.hourglass.node.tenant.RateLimitedException;
import io.javalin.Javalin;
import io.javalin.http.HttpResponseException;
import java.util.List;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The HTTP front door (docs/api.md) on Javalin, serving the route groups it is given. Errors are
 * mapped here, once, by the {@link FrontDoorRules} Dubbo uses too: a {@link HourglassException} to
 * its code's status; a database failure to 503 UNAVAILABLE (the request may be retried: nothing
 * was acknowledged); anything else to 500 INTERNAL. With a key store ({@code http.tls.*}) the port
 * speaks HTTPS only ({@link TlsKeyStore}).
 */
public final class HttpApi implements AutoCloseable {
    private final Javalin app;
    private final boolean https;

    /**
     * Where and how the API listens.
     *
     * @param maxRequestBytes largest request body (413 beyond)
     * @param tls the HTTPS key store; null: plain HTTP
     */
    public record Listener(String host, int port, long maxRequestBytes, TlsKeyStore tls) {}

    /** A connection with nothing to read or write is closed after this: longer than the longest long poll. */
    static final long IDLE_TIMEOUT_MS = 60_000;

    /** Connections the system queues for the server to accept (the kernel caps it at somaxconn). */
    static final int ACCEPT_QUEUE = 1_024;

    /** Serves {@code routes}; every failure is answered by {@link FrontDoorRules#toClient}. */
    public HttpApi(Listener listener, List<RouteGroup> routes) {
        this.https = listener.tls() != null;
        this.app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.startup.showOldJavalinVersionWarning = false;
            cfg.jetty.host = listener.host();
            cfg.jetty.port = listener.port();
            // our own connector (Javalin then adds none): Jetty's default idle timeout, 30 s, is
            // the longest wait a pull consumer may ask for (waitMs), and would cut it at its end
            cfg.jetty.addConnector((server, http) -> {
                ServerConnector connector = https
                        ? listener.tls().connector(server, http, listener.host(), listener.port())
                        : plainConnector(server, http, listener.host(), listener.port());
                connector.setIdleTimeout(IDLE_TIMEOUT_MS);
                // Java's default backlog is 50: a crowd of consumers connecting at once (1,000 long
                // polls) overflowed it and some connections failed
                connector.setAcceptQueueSize(ACCEPT_QUEUE);
                return connector;
            });
            cfg.http.maxRequestSize = listener.maxRequestBytes();
            cfg.http.defaultContentType = "application/json";
            routes.forEach(group -> group.register(cfg.routes));
            cfg.routes.exception(HttpResponseException.class, (e, ctx) -> {
                ErrorCode code = e.getStatus() == 413 ? ErrorCode.PAYLOAD_TOO_LARGE : codeOf(e.getStatus());
                Respond.json(ctx, e.getStatus(), Json.error(code.name(), e.getMessage(), null));
            });
            cfg.routes.exception(Exception.class, (failure, ctx) -> {
                if (failure instanceof RateLimitedException limited) {
                    ctx.header("Retry-After", Long.toString(limited.retryAfterSeconds()));
                }
                HourglassException e = FrontDoorRules.toClient(failure, ctx.method() + " " + ctx.path());
                Respond.json(ctx, e.code().httpStatus(), Json.error(e.code().name(), e.getMessage(), e.field()));
            });
        });
    }

    private static ServerConnector plainConnector(Server server, HttpConfiguration http, String host, int port) {
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost(host);
        connector.setPort(port);
        return connector;
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
