package dev.hourglass.node.catalog;

import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.JobBounds;
import dev.hourglass.node.core.job.Names;
import dev.hourglass.node.core.port.AuditLog;
import dev.hourglass.node.core.port.ScheduleStore;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.AlertPolicy;
import dev.hourglass.node.core.service.FlowControl;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.service.ServiceSpec;
import dev.hourglass.node.tenant.Caller;
import dev.hourglass.node.tenant.DeliveryTargets;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Creates, replaces and deletes services with the checks of docs/api.md, "Services". A protocol is
 * accepted only when this node can deliver it ({@code supported}); the others are a 400 naming the
 * protocol.
 *
 * <p>DUBBO services name their {@code JobCallbackService} by group and version, found through the
 * node's Dubbo registry, or give a direct {@code url} ({@code dubbo://host:port}, on the callback
 * allow-list like HTTP URLs); without a registry the url is required.
 *
 * <p>Tenant isolation: a KAFKA service's topic and a DUBBO service's group must be the app's own
 * or granted to it by the admin ({@link DeliveryTargets}); the check comes after every other check
 * of the target, so a refusal names {@code topic} or {@code dubboGroup} only for a well-formed one.
 */
public final class ServiceCommands {
    private static final SecureRandom RANDOM = new SecureRandom();
    /** More failures than this within a window is an outage, alerted long before. */
    private static final int MAX_ALERT_FAILURES = 1_000_000;
    /** 30 days: an alert window longer than that counts failures nobody connects any more. */
    private static final int MAX_ALERT_WINDOW_SECONDS = 30 * 24 * 3600;
    /** The latest attempts read to judge a streak: more would make every evaluation a long read. */
    public static final int MAX_ALERT_CONSECUTIVE = 1_000;
    /** Attempts a second: above this a rate limit limits nothing a node can start. */
    private static final int MAX_RATE = 100_000;

    private final ServiceCatalog catalog;
    private final CallbackAllowList allowList;
    private final DeliveryTargets targets;
    private final Set<Protocol> supported;
    private final boolean dubboRegistry;
    private final ScheduleStore schedules;
    private final AuditLog audit;
    private final Clock clock;

    /** @param dubboRegistry whether this node finds Dubbo providers through a registry */
    public ServiceCommands(
            ServiceCatalog catalog,
            CallbackAllowList allowList,
            DeliveryTargets targets,
            Set<Protocol> supported,
            boolean dubboRegistry,
            ScheduleStore schedules,
            AuditLog audit,
            Clock clock) {
        this.schedules = schedules;
        this.audit = audit;
        this.catalog = catalog;
        this.allowList = allowList;
        this.targets = targets;
        this.supported = supported;
        this.dubboRegistry = dubboRegistry;
        this.clock = clock;
    }

    public ServiceDefinition put(String app, String name, ServiceSpec spec) {
        Names.requireName("name", name);
        Protocol protocol = protocol(spec.protocol());
        String url = null;
        String topic = null;
        String dubboGroup = null;
        String dubboVersion = null;
        switch (protocol) {
            case HTTP -> url = httpUrl(spec.url());
            case KAFKA -> {
                topic = kafkaTopic(spec.topic());
                targets.requireTopic(app, topic);
            }
            case DUBBO -> {
                url = dubboUrl(spec.url());
                dubboGroup = dubboName("dubboGroup", spec.dubboGroup());
                dubboVersion = dubboName("dubboVersion", spec.dubboVersion());
                targets.requireDubboGroup(app, dubboGroup, url != null);
            }
            case PULL -> {
                // no target: its consumers come for the jobs
            }
        }
        int maxAttempts = within("maxAttempts", spec.maxAttempts(), 5, 1, JobBounds.MAX_ATTEMPTS);
        long timeoutMs = within("timeoutMs", spec.timeoutMs(), 30_000L, 1L, JobBounds.MAX_TIMEOUT_MS);
        long initial = within("backoff.initialMs", spec.backoffInitialMs(), 1_000L, 0L, JobBounds.MAX_BACKOFF_MS);
        long max = within(
                "backoff.maxMs", spec.backoffMaxMs(), Math.max(600_000L, initial), initial, JobBounds.MAX_BACKOFF_MS);
        double multiplier = spec.backoffMultiplier() == null ? 2.0 : spec.backoffMultiplier();
        if (multiplier < 1.0 || multiplier > 100.0) {
            throw HourglassException.invalid("backoff.multiplier", "backoff.multiplier must be in 1.0..100.0");
        }
        AckMode ackMode = ackMode(spec.ackMode(), protocol);
        int maxInFlight =
                within("maxInFlight", spec.maxInFlight(), ServiceDefinition.DEFAULT_MAX_IN_FLIGHT, 1, 100_000);
        String secret = spec.signingSecret();
        if (secret == null) {
            secret = existingSecret(app, name);
        } else if (secret.length() < 32 || secret.length() > 256) {
            throw HourglassException.invalid("signingSecret", "signingSecret must be 32..256 characters");
        }
        AlertPolicy alert = spec.alert();
        if (alert != null) {
            within("alert.failures", alert.failures(), null, 1, MAX_ALERT_FAILURES);
            within("alert.windowSeconds", alert.windowSeconds(), null, 1, MAX_ALERT_WINDOW_SECONDS);
            if (alert.consecutiveFailures() != null) {
                within("alert.consecutiveFailures", alert.consecutiveFailures(), null, 1, MAX_ALERT_CONSECUTIVE);
            }
            if (alert.overdueSeconds() != null) {
                within("alert.overdueSeconds", alert.overdueSeconds(), null, 1, MAX_ALERT_WINDOW_SECONDS);
            }
            if (alert.webhook() != null) {
                webhookUrl(alert.webhook());
            }
        }
        FlowControl flow = new FlowControl(rateLimit(spec), deadLetter(app, name, spec));
        // after every check of the request itself: a request that is wrong in itself is a 400,
        // whatever the service it would change
        requireSameKindOfDelivery(app, name, protocol);
        long now = clock.millis();
        return catalog.put(new ServiceDefinition(
                app,
                name,
                protocol,
                topic,
                url,
                dubboGroup,
                dubboVersion,
                maxAttempts,
                timeoutMs,
                new Backoff(initial, multiplier, max),
                ackMode,
                maxInFlight,
                secret,
                alert,
                now,
                now,
                flow,
                null)); // the pause is kept by the store: a put never changes it
    }

    /**
     * Pauses ({@code paused}) or resumes the service, cluster-wide within a second (docs/api.md,
     * "Flow control"); idempotent, and audited whether or not it changed anything.
     */
    public ServiceDefinition setPaused(Caller caller, String app, String name, boolean paused) {
        get(app, name); // 404 first
        long now = clock.millis();
        String actor = caller.isAdmin() ? "admin" : "app:" + caller.app();
        ServiceDefinition after = catalog.setPaused(app, name, paused, actor, now)
                .orElseThrow(() -> HourglassException.notFound("service " + name + " not found"));
        // this call changed it if the stored moment is its own (memory may be half a second behind)
        Long stamp = paused ? after.pause().pausedAt() : after.pause().resumedAt();
        boolean changed = stamp != null && stamp == now && after.paused() == paused;
        audit.record(new AuditLog.Entry(
                0,
                now,
                actor,
                app,
                paused ? "PAUSE_SERVICE" : "RESUME_SERVICE",
                "{\"service\":\"" + name + "\"}", // a checked name: no character to escape
                1,
                changed ? 1 : 0,
                changed ? 0 : 1,
                null));
        return after;
    }

    /** 1..100,000 attempts a second; the burst defaults to a tenth of a second's worth. */
    private static FlowControl.RateLimit rateLimit(ServiceSpec spec) {
        if (!spec.rateLimitGiven()) {
            if (spec.ratePerSecond() != null || spec.rateBurst() != null) {
                throw HourglassException.invalid("rateLimit", "rateLimit is an object: {perSecond, burst}");
            }
            return null;
        }
        if (spec.ratePerSecond() == null) {
            throw HourglassException.invalid("rateLimit.perSecond", "rateLimit.perSecond is required");
        }
        int perSecond = within("rateLimit.perSecond", spec.ratePerSecond(), null, 1, MAX_RATE);
        int burst = within("rateLimit.burst", spec.rateBurst(), Math.max(1, (perSecond + 9) / 10), 1, MAX_RATE);
        return new FlowControl.RateLimit(perSecond, burst);
    }

    /**
     * A service of the same app, not this one, that has no dead letter itself; and this service is
     * no other's dead letter (a dead letter's failures go nowhere further: no chains, no loops).
     */
    private FlowControl.DeadLetter deadLetter(String app, String name, ServiceSpec spec) {
        if (spec.deadLetter() == null) {
            if (spec.deadLetterOn() != null) {
                throw HourglassException.invalid("deadLetterOn", "deadLetterOn needs a deadLetter");
            }
            return null;
        }
        String target = Names.requireName("deadLetter", spec.deadLetter());
        if (target.equals(name)) {
            throw HourglassException.invalid("deadLetter", "a service cannot be its own dead letter");
        }
        // the request's own fields first: one wrong in itself is a 400 whatever the services are
        Set<JobState> on = EnumSet.noneOf(JobState.class);
        if (spec.deadLetterOn() == null) {
            on.add(JobState.FAILED);
        } else {
            for (String state : spec.deadLetterOn()) {
                if ("FAILED".equals(state)) {
                    on.add(JobState.FAILED);
                } else if ("EXPIRED".equals(state)) {
                    on.add(JobState.EXPIRED);
                } else {
                    throw HourglassException.invalid("deadLetterOn", "deadLetterOn lists FAILED and/or EXPIRED");
                }
            }
            if (on.isEmpty()) {
                throw HourglassException.invalid("deadLetterOn", "deadLetterOn lists FAILED and/or EXPIRED");
            }
        }
        // read from the database, not this node's memory: a dead letter given to the target through
        // another node a moment ago must be seen (two PUTs at the very same moment can still cross:
        // a letter is never dead-lettered again, see DeadLetterOffice)
        ServiceDefinition letters = catalog.findStored(app, target)
                .orElseThrow(() -> HourglassException.invalid(
                        "deadLetter", "deadLetter must name a service of the same app: " + target + " not found"));
        if (letters.flow().deadLetter() != null) {
            throw HourglassException.conflict("service " + target + " has a dead letter of its own ("
                    + letters.flow().deadLetter().service() + "): a dead letter cannot have one");
        }
        List<String> namedBy = catalog.deadLetterOf(app, name);
        if (!namedBy.isEmpty()) {
            throw HourglassException.conflict(
                    "service " + name + " is the dead letter of " + namedBy + ": a dead letter cannot have one");
        }
        return new FlowControl.DeadLetter(target, on);
    }

    /** Keeps the secret of a replaced service unless a new one is given; generates one for a new service. */
    private String existingSecret(String app, String name) {
        return catalog.find(app, name).map(ServiceDefinition::signingSecret).orElseGet(() -> HexFormat.of()
                .formatHex(randomBytes(24)));
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    public void delete(String app, String name) {
        catalog.find(app, name).orElseThrow(() -> HourglassException.notFound("service " + name + " not found"));
        List<String> namedBy = schedules.namingService(app, name);
        if (!namedBy.isEmpty()) {
            throw HourglassException.conflict("service " + name + " is the service of schedules " + namedBy);
        }
        List<String> letterOf = catalog.deadLetterOf(app, name);
        if (!letterOf.isEmpty()) {
            throw HourglassException.conflict("service " + name + " is the dead letter of " + letterOf);
        }
        if (!catalog.deleteIfIdle(app, name)) {
            throw HourglassException.conflict("service " + name + " still has live jobs");
        }
    }

    public ServiceDefinition get(String app, String name) {
        // as stored: a pause through another node a moment ago shows (this node's memory of the
        // services may be up to half a second behind)
        return catalog.findStored(app, name)
                .orElseThrow(() -> HourglassException.notFound("service " + name + " not found"));
    }

    private Protocol protocol(String value) {
        if (value == null) {
            throw HourglassException.invalid("protocol", "protocol is required: HTTP, KAFKA, DUBBO or PULL");
        }
        Protocol p;
        try {
            p = Protocol.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw HourglassException.invalid("protocol", "protocol must be HTTP, KAFKA, DUBBO or PULL");
        }
        if (!supported.contains(p)) {
            throw HourglassException.invalid("protocol", "protocol " + p + " is not enabled on this node");
        }
        return p;
    }

    private String httpUrl(String value) {
        return allowList.requireHttpUrl("url", required("url", value));
    }

    /** An alert webhook is called like a callback, so the same allow-list applies. */
    private String webhookUrl(String value) {
        return allowList.requireHttpUrl("alert.webhook", value);
    }

    /** A name Kafka accepts for a topic: 1..249 of [A-Za-z0-9._-], not "." or "..". */
    private static String kafkaTopic(String value) {
        String topic = required("topic", value);
        if (!topic.matches("[A-Za-z0-9._-]{1,249}") || topic.equals(".") || topic.equals("..")) {
            throw HourglassException.invalid(
                    "topic", "topic must be a Kafka topic name: 1..249 characters of [A-Za-z0-9._-], not . or ..");
        }
        return topic;
    }

    /** A direct provider address, or null to find providers through the registry. */
    private String dubboUrl(String value) {
        if (value == null || value.isBlank()) {
            if (!dubboRegistry) {
                throw HourglassException.invalid(
                        "url", "this node has no Dubbo registry: a DUBBO service needs a url like dubbo://host:20880");
            }
            return null;
        }
        URI uri;
        try {
            uri = URI.create(value);
        } catch (IllegalArgumentException e) {
            throw HourglassException.invalid("url", "url is not a valid URI");
        }
        if (!"dubbo".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 1) {
            throw HourglassException.invalid("url", "a DUBBO service's url is dubbo://host:port");
        }
        if (!allowList.allows(uri)) {
            throw HourglassException.invalid("url", "host " + uri.getHost() + " is not on the callback allow-list");
        }
        return "dubbo://" + uri.getHost() + ":" + uri.getPort();
    }

    /** Group and version as Dubbo matches them literally: no wildcards, lists or spaces. */
    private static String dubboName(String field, String value) {
        if (value == null) {
            return null;
        }
        if (!value.matches("[A-Za-z0-9._-]{1,128}")) {
            throw HourglassException.invalid(field, field + " must be 1..128 characters of [A-Za-z0-9._-]");
        }
        return value;
    }

    private static AckMode ackMode(String value, Protocol protocol) {
        if (value == null) {
            return protocol == Protocol.PULL ? AckMode.CONSUMER : AckMode.AUTO;
        }
        AckMode mode;
        try {
            mode = AckMode.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw HourglassException.invalid("ackMode", "ackMode must be AUTO or CONSUMER");
        }
        if (protocol == Protocol.PULL && mode != AckMode.CONSUMER) {
            throw HourglassException.invalid("ackMode", "a PULL service is acknowledged by its consumers: CONSUMER");
        }
        return mode;
    }

    /**
     * A service does not move between being pushed (HTTP, KAFKA, DUBBO) and pulled: the engine
     * leaves a PULL service's jobs to its consumers, and its memory of which jobs it has read
     * would miss those of a service that became pushed. Create a new service instead.
     */
    private void requireSameKindOfDelivery(String app, String name, Protocol protocol) {
        catalog.find(app, name).ifPresent(existing -> {
            if ((existing.protocol() == Protocol.PULL) != (protocol == Protocol.PULL)) {
                throw HourglassException.conflict("service " + name + " is " + existing.protocol()
                        + ": a service cannot change between PULL and a pushed protocol; create a new service");
            }
        });
    }

    private static String required(String field, String value) {
        if (value == null || value.isBlank()) {
            throw HourglassException.invalid(field, field + " is required");
        }
        return value;
    }

    private static <T extends Comparable<T>> T within(String field, T value, T dflt, T min, T max) {
        T v = value == null ? dflt : value;
        if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
            throw HourglassException.invalid(field, field + " must be in " + min + ".." + max);
        }
        return v;
    }
}
