package dev.hourglass.node.catalog;

import dev.hourglass.node.job.Backoff;

/** A delivery target registered by an app, with its delivery policy (the seed's job_callback_service). */
public record ServiceDefinition(
        String app,
        String name,
        Protocol protocol,
        String topic,
        String url,
        String dubboGroup,
        String dubboVersion,
        int maxAttempts,
        long timeoutMs,
        Backoff backoff,
        AckMode ackMode,
        int maxInFlight,
        String signingSecret,
        AlertPolicy alert,
        long createdAt,
        long updatedAt) {

    public String key() {
        return app + '/' + name;
    }
}
