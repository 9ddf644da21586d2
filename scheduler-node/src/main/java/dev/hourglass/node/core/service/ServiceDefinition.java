package dev.hourglass.node.core.service;

import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Job;

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
        long updatedAt,
        FlowControl flow,
        Pause pause) {

    /** A service's limit on deliveries under way when it cannot be read (and its default). */
    public static final int DEFAULT_MAX_IN_FLIGHT = 1_000;

    public ServiceDefinition {
        flow = flow == null ? FlowControl.NONE : flow;
        pause = pause == null ? Pause.NEVER : pause;
    }

    /** A service without flow control, never paused. */
    public ServiceDefinition(
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
        this(
                app,
                name,
                protocol,
                topic,
                url,
                dubboGroup,
                dubboVersion,
                maxAttempts,
                timeoutMs,
                backoff,
                ackMode,
                maxInFlight,
                signingSecret,
                alert,
                createdAt,
                updatedAt,
                FlowControl.NONE,
                Pause.NEVER);
    }

    public boolean paused() {
        return pause.paused();
    }

    /** The key of this service among every app's ({@link Job#serviceKey(String, String)}). */
    public String key() {
        return Job.serviceKey(app, name);
    }
}
