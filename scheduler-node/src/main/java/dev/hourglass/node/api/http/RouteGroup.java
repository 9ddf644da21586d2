package dev.hourglass.node.api.http;

import io.javalin.config.RoutesConfig;

/** A group of the HTTP API's routes (jobs, services, apps, ...), handed to {@link HttpApi} to serve. */
public interface RouteGroup {
    void register(RoutesConfig routes);
}
