package dev.hourglass.node.core.service;

/**
 * A service as a caller describes it in {@code PUT /services/{name}}; null means "the default".
 * {@code catalog.ServiceCommands} validates it into a {@link ServiceDefinition}. {@code
 * rateLimitGiven}: the body had a {@code rateLimit} object (its fields may still be missing).
 */
public record ServiceSpec(
        String protocol,
        String topic,
        String url,
        String dubboGroup,
        String dubboVersion,
        Integer maxAttempts,
        Long timeoutMs,
        Long backoffInitialMs,
        Double backoffMultiplier,
        Long backoffMaxMs,
        String ackMode,
        Integer maxInFlight,
        String signingSecret,
        AlertPolicy alert,
        Integer ratePerSecond,
        Integer rateBurst,
        boolean rateLimitGiven,
        String deadLetter,
        java.util.List<String> deadLetterOn) {}
