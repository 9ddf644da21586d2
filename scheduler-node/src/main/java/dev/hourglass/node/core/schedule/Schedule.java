package dev.hourglass.node.core.schedule;

import java.util.Map;

/**
 * A recurring schedule as stored: what a caller defined ({@link ScheduleSpec}, validated) and where
 * its materialisation stands. Times are epoch milliseconds.
 *
 * @param cron the expression as given (six fields, five, or a macro), or null for {@code everyMs}
 * @param everyMs the fixed interval, or null for {@code cron}
 * @param generation changes when the schedule is created again or replaced; part of its jobs' bizKeys
 * @param cursorAt the last occurrence submitted or given up; the next pass plans what comes after
 * @param nextCheckAt when the owner node looks at the schedule again; null while paused or ended
 * @param lastOccurrenceAt the occurrence of the job submitted last, or null
 * @param lastJobId that job's id, or null
 */
public record Schedule(
        String app,
        String name,
        int shard,
        String service,
        String cron,
        Long everyMs,
        String timeZone,
        String payload,
        Map<String, String> attributes,
        Long startAt,
        Long endAt,
        Misfire misfire,
        long catchUpWindowMs,
        Overlap overlap,
        boolean paused,
        Long pausedAt,
        Integer maxAttempts,
        Long timeoutMs,
        Long expireAfterMs,
        long generation,
        long cursorAt,
        Long nextCheckAt,
        Long lastOccurrenceAt,
        Long lastJobId,
        long createdAt,
        long updatedAt) {

    /** The prefix of every bizKey of this schedule's jobs, whatever the generation. */
    public static String bizKeyPrefix(String name) {
        return BIZ_KEY_PREFIX + name + ":";
    }

    /** The bizKey of the job of one occurrence: deterministic, so it can never be submitted twice. */
    public String bizKeyOf(long occurrenceMs) {
        return bizKeyPrefix(name) + generation + ":" + occurrenceMs;
    }

    /** Clients may not use it: schedules' jobs alone do (docs/api.md, "Schedules"). */
    public static final String BIZ_KEY_PREFIX = "sched:";

    /** The attribute naming the schedule on each of its jobs. */
    public static final String ATTRIBUTE_SCHEDULE = "hourglass-schedule";

    /** The attribute holding the occurrence (epoch ms) a job stands for. */
    public static final String ATTRIBUTE_OCCURRENCE = "hourglass-occurrence";

    public String key() {
        return app + '/' + name;
    }
}
