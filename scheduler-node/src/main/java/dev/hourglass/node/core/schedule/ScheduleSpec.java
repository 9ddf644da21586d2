package dev.hourglass.node.core.schedule;

import java.util.Map;

/**
 * A schedule as a caller describes it in {@code PUT /schedules/{name}}; null means "the default".
 * {@code schedule.ScheduleCommands} checks it into a {@link Schedule}.
 *
 * @param every an ISO-8601 duration ({@code PT15M}), given instead of {@code cron}
 * @param payload the payload's JSON text
 */
public record ScheduleSpec(
        String service,
        String cron,
        String every,
        String timeZone,
        String payload,
        Map<String, String> attributes,
        Long startAt,
        Long endAt,
        String misfire,
        Long catchUpWindowMs,
        String overlap,
        Boolean paused,
        Integer maxAttempts,
        Long timeoutMs,
        Long expireAfterMs) {}
