package dev.hourglass.spring.boot.actuate;

import dev.hourglass.sdk.HourglassClient;
import java.time.Duration;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * UP when the node the client calls answers {@code /health/ready}, DOWN when it does not or cannot
 * be reached; the detail {@code baseUrl} says which node was asked. It asks no more than that:
 * whether the token is valid shows in the first call, and a health check must not cost the node a
 * database query per probe.
 */
public class HourglassHealthIndicator extends AbstractHealthIndicator {
    private final HourglassClient client;
    private final Duration timeout;

    public HourglassHealthIndicator(HourglassClient client, Duration timeout) {
        super("Hourglass health check failed");
        this.client = client;
        this.timeout = timeout;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("baseUrl", client.currentBaseUrl());
        if (client.nodeReady(timeout)) {
            builder.up();
        } else {
            builder.down().withDetail("reason", "the node is not ready or cannot be reached");
        }
    }
}
