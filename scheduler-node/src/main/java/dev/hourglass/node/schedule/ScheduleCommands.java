package dev.hourglass.node.schedule;

import dev.hourglass.api.HourglassException;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.Names;
import dev.hourglass.node.core.port.CronSyntax;
import dev.hourglass.node.core.port.JobWrites;
import dev.hourglass.node.core.port.ScheduleStore;
import dev.hourglass.node.core.schedule.CronRecurrence;
import dev.hourglass.node.core.schedule.IntervalRecurrence;
import dev.hourglass.node.core.schedule.Misfire;
import dev.hourglass.node.core.schedule.Overlap;
import dev.hourglass.node.core.schedule.Recurrence;
import dev.hourglass.node.core.schedule.Schedule;
import dev.hourglass.node.core.schedule.ScheduleSpec;
import dev.hourglass.node.core.schedule.Series;
import dev.hourglass.node.core.shard.ShardPlacement;
import dev.hourglass.node.manage.JobManager;
import dev.hourglass.node.manage.JobManager.JobTemplate;
import dev.hourglass.node.tenant.Caller;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates, replaces, pauses, resumes, triggers and deletes schedules with the checks of
 * docs/api.md, "Schedules": a bad field is a 400 naming it, and changes nothing. The jobs of the
 * occurrences are submitted by {@link MaterializeSchedulesTask} on the schedule's owner node.
 *
 * <p>A replace, a pause and a delete cancel the schedule's jobs that have not fired yet. They do so
 * after their own transaction: from then on no pass writes a job of the old generation or of a
 * paused schedule (a pass locks the row and checks both), so the jobs found then are all there are.
 */
public final class ScheduleCommands {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleCommands.class);
    /** The attributes Hourglass adds to each job: the schedule and the occurrence. */
    static final int OWN_ATTRIBUTES = 2;
    /** 30 days: misses older than that are not caught up whatever the window says. */
    static final long MAX_CATCH_UP_WINDOW_MS = Duration.ofDays(30).toMillis();

    static final long DEFAULT_CATCH_UP_WINDOW_MS = Duration.ofHours(1).toMillis();
    static final long MIN_EVERY_MS = 1_000;
    /** How many fire times a read of a schedule shows. */
    public static final int NEXT_FIRE_TIMES = 5;

    private final ScheduleStore store;
    private final JobManager jobs;
    /** The longest cron expression kept (the column's width). */
    static final int MAX_CRON_LENGTH = 255;

    private final CronSyntax cronSyntax;
    private final ShardPlacement placement;
    private final Consumer<Schedule> passNow;
    private final Clock clock;

    /**
     * @param passNow a materialisation pass of a schedule just put or resumed, on this node: its
     *     first occurrences are submitted before the answer, not at the owner's next run
     */
    public ScheduleCommands(
            ScheduleStore store,
            JobManager jobs,
            CronSyntax cronSyntax,
            ShardPlacement placement,
            Consumer<Schedule> passNow,
            Clock clock) {
        this.store = store;
        this.jobs = jobs;
        this.cronSyntax = cronSyntax;
        this.placement = placement;
        this.passNow = passNow;
        this.clock = clock;
    }

    /** A schedule with what a read shows beside it. */
    /**
     * A schedule as read: its next fire times, and its last occurrence that came (at or before the
     * read) with the job submitted for it, if any.
     */
    public record View(
            Schedule schedule, List<Long> nextFireTimes, Long lastOccurrenceAt, Long lastJobId, Job lastJob) {}

    public View put(String app, String name, ScheduleSpec spec) {
        Names.requireName("name", name);
        long now = clock.millis();
        Schedule stored = store.put(check(app, name, spec, now));
        // every older generation's (also what an earlier put that failed before its cancels left);
        // not a newer one's: a put that raced this one and came second keeps its jobs
        cancelUnfired(app, name, g -> g < stored.generation());
        return view(passed(app, name).orElse(stored));
    }

    public View get(String app, String name) {
        return view(find(app, name));
    }

    /**
     * A page of schedules in (app, name) order; {@code cursor} is the last one's {@code app/name}
     * from the page before, or null.
     */
    public List<View> list(String app, String cursor, int limit) {
        String afterApp = null;
        String afterName = null;
        if (cursor != null) {
            int slash = cursor.indexOf('/');
            if (slash < 1 || slash == cursor.length() - 1) {
                throw HourglassException.invalid("cursor", "cursor is not one this API gave");
            }
            afterApp = cursor.substring(0, slash);
            afterName = cursor.substring(slash + 1);
        }
        return store.list(app, afterApp, afterName, limit).stream()
                .map(this::view)
                .toList();
    }

    public void delete(String app, String name) {
        Schedule deleted = store.delete(app, name).orElseThrow(() -> notFound(name));
        // up to the deleted generation: a schedule created again meanwhile keeps its jobs
        cancelUnfired(app, name, g -> g <= deleted.generation());
        LOG.info("schedule {} deleted (generation {})", deleted.key(), deleted.generation());
    }

    public View pause(String app, String name) {
        Schedule s = store.setPaused(app, name, true, clock.millis()).orElseThrow(() -> notFound(name));
        // up to the paused generation: a resume meanwhile starts a new one, whose jobs stay
        cancelUnfired(app, name, g -> g <= s.generation());
        return view(s);
    }

    public View resume(String app, String name) {
        store.setPaused(app, name, false, clock.millis()).orElseThrow(() -> notFound(name));
        return view(passed(app, name).orElseThrow(() -> notFound(name)));
    }

    /** The schedule after a pass made now (read again: the pass moved its cursor). */
    private Optional<Schedule> passed(String app, String name) {
        store.find(app, name).ifPresent(passNow);
        return store.find(app, name);
    }

    /**
     * One job now, outside the series: with the client's {@code bizKey} (then a second call with it
     * returns the first job), or none.
     */
    public JobWrites.Inserted trigger(String app, String name, String bizKey) {
        Schedule s = find(app, name);
        Names.requireClientBizKey(bizKey);
        long now = clock.millis();
        Job job = jobs.jobOf(app, templateOf(s), bizKey, Map.of(Schedule.ATTRIBUTE_SCHEDULE, s.name()), now, now);
        return jobs.store(job);
    }

    private Schedule find(String app, String name) {
        return store.find(app, name).orElseThrow(() -> notFound(name));
    }

    private static HourglassException notFound(String name) {
        return HourglassException.notFound("schedule " + name + " not found");
    }

    private View view(Schedule s) {
        long now = clock.millis();
        // from now, or from startAt if later (the series starts there)
        List<Long> next = seriesOf(s, cronSyntax).next(now, NEXT_FIRE_TIMES);
        // the last occurrence of this generation that came: jobs are submitted ahead, so the one
        // submitted last may still be to come (the next of a daily cron, or 30 s ahead of a
        // frequent one), and after a replace while paused it is the old generation's
        Optional<ScheduleStore.SubmittedOccurrence> came = store.lastSubmittedAtOrBefore(s, now);
        Long lastAt = came.map(ScheduleStore.SubmittedOccurrence::occurrenceAt).orElse(null);
        Long lastJobId = came.map(ScheduleStore.SubmittedOccurrence::jobId).orElse(null);
        Job last = null;
        if (lastJobId != null) {
            try {
                last = jobs.get(Caller.ofApp(s.app()), lastJobId);
            } catch (HourglassException gone) {
                // deleted by retention: the time and the id are still shown
            }
        }
        return new View(s, next, lastAt, lastJobId, last);
    }

    static JobTemplate templateOf(Schedule s) {
        return new JobTemplate(
                s.service(), s.payload(), s.attributes(), s.maxAttempts(), s.timeoutMs(), s.expireAfterMs());
    }

    /** The schedule's occurrences: its recurrence between its start and end. */
    public static Series seriesOf(Schedule s, CronSyntax cronSyntax) {
        Recurrence r = s.cron() != null
                ? CronRecurrence.of(s.cron(), ZoneId.of(s.timeZone()), cronSyntax)
                : new IntervalRecurrence(s.startAt() != null ? s.startAt() : s.createdAt(), s.everyMs());
        return new Series(r, s.startAt(), s.endAt());
    }

    /**
     * Cancels the schedule's jobs that have not fired, of the generations {@code which} accepts.
     * After the transaction that changed the schedule: from then on no pass writes a job of those
     * generations, so the jobs found are all there are. One that fires meanwhile is left to run.
     */
    private void cancelUnfired(String app, String name, LongPredicate which) {
        for (ScheduleStore.ScheduledJob job : store.unfiredJobs(app, name)) {
            if (!which.test(job.generation())) {
                continue;
            }
            try {
                jobs.cancel(Caller.ofApp(app), job.jobId());
            } catch (HourglassException e) {
                // it fired, or was canceled, meanwhile: nothing to undo
                LOG.debug("job {} of schedule {}/{} not canceled: {}", job.jobId(), app, name, e.getMessage());
            }
        }
    }

    private Schedule check(String app, String name, ScheduleSpec spec, long now) {
        if (spec.cron() == null && spec.every() == null) {
            throw HourglassException.invalid("cron", "cron or every is required");
        }
        if (spec.cron() != null && spec.cron().trim().length() > MAX_CRON_LENGTH) {
            throw HourglassException.invalid("cron", "cron must be at most " + MAX_CRON_LENGTH + " characters");
        }
        if (spec.cron() != null && spec.every() != null) {
            throw HourglassException.invalid("every", "give cron or every, not both");
        }
        String zone = spec.timeZone() == null ? "UTC" : spec.timeZone();
        if (!zone.equals("UTC") && !ZoneId.getAvailableZoneIds().contains(zone)) {
            throw HourglassException.invalid(
                    "timeZone", "timeZone must be an IANA zone such as Europe/Berlin: " + zone);
        }
        Long everyMs = null;
        if (spec.every() != null) {
            try {
                everyMs = Duration.parse(spec.every()).toMillis();
            } catch (DateTimeParseException | ArithmeticException e) {
                throw HourglassException.invalid("every", "every must be an ISO-8601 duration such as PT15M");
            }
            if (everyMs < MIN_EVERY_MS) {
                throw HourglassException.invalid("every", "every must be at least 1 s (PT1S)");
            }
        }
        if (spec.startAt() != null && spec.startAt() < 0) {
            throw HourglassException.invalid("startAt", "startAt must not be before 1970");
        }
        if (spec.endAt() != null && spec.startAt() != null && spec.endAt() < spec.startAt()) {
            throw HourglassException.invalid("endAt", "endAt is before startAt");
        }
        Misfire misfire = enumOf("misfire", Misfire.class, spec.misfire(), Misfire.FIRE_ONCE);
        Overlap overlap = enumOf("overlap", Overlap.class, spec.overlap(), Overlap.ALLOW);
        long window = spec.catchUpWindowMs() == null ? DEFAULT_CATCH_UP_WINDOW_MS : spec.catchUpWindowMs();
        if (window < 0 || window > MAX_CATCH_UP_WINDOW_MS) {
            throw HourglassException.invalid(
                    "catchUpWindowMs", "catchUpWindowMs must be in 0.." + MAX_CATCH_UP_WINDOW_MS + " (30 days)");
        }
        JobTemplate template = jobs.checkTemplate(
                app,
                new JobTemplate(
                        spec.service(),
                        spec.payload(),
                        spec.attributes(),
                        spec.maxAttempts(),
                        spec.timeoutMs(),
                        spec.expireAfterMs()),
                OWN_ATTRIBUTES);
        Optional<Schedule> existing = store.find(app, name);
        long generation = now; // the store makes it the replaced one's + 1 if that is higher
        boolean paused = spec.paused() != null
                ? spec.paused()
                : existing.map(Schedule::paused).orElse(false);
        Schedule s = new Schedule(
                app,
                name,
                shardOf(app, name),
                template.service(),
                spec.cron() == null ? null : spec.cron().trim(),
                everyMs,
                zone,
                template.payload(),
                template.attributes(),
                spec.startAt(),
                spec.endAt(),
                misfire,
                window,
                overlap,
                paused,
                paused ? now : null,
                template.maxAttempts(),
                template.timeoutMs(),
                template.expireAfterMs(),
                generation,
                now - 1, // nothing before now is missed: an interval anchored now fires now
                paused ? null : now,
                null,
                null,
                // a replace keeps the creation time, the anchor of an interval without startAt: a
                // PUT of the same body again neither fires at once nor moves the series
                existing.map(Schedule::createdAt).orElse(now),
                now);
        Series series;
        try {
            series = seriesOf(s, cronSyntax);
        } catch (IllegalArgumentException e) {
            throw HourglassException.invalid("cron", "cron: " + e.getMessage());
        }
        if (spec.cron() != null && series.recurrence().firstAfter(now).isEmpty()) {
            throw HourglassException.invalid("cron", "the cron expression never fires: " + spec.cron());
        }
        if (spec.endAt() != null && series.firstAfter(now - 1).isEmpty()) {
            // a window that has closed, or holds no occurrence from now on: a schedule that would
            // never submit a job is a mistake, not a definition
            throw HourglassException.invalid("endAt", "the schedule has no occurrence from now until endAt");
        }
        return s;
    }

    private static <E extends Enum<E>> E enumOf(String field, Class<E> type, String given, E fallback) {
        if (given == null) {
            return fallback;
        }
        try {
            return Enum.valueOf(type, given.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw HourglassException.invalid(field, field + " must be one of " + Set.of(type.getEnumConstants()));
        }
    }

    /** The shard of a schedule: its owner node materialises it, as it fires that shard's jobs. */
    private int shardOf(String app, String name) {
        return placement.shardOfKey(app + '/' + name);
    }

    /**
     * An IANA region ({@code Europe/Berlin}) or UTC: not an offset ({@code +08:00}) nor one of the
     * old abbreviations the JDK still knows ({@code EST}, {@code Etc/GMT+8}, {@code SystemV/…}),
     * which have no daylight-saving rules of a place.
     */
    static boolean isRegion(String zone) {
        return zone.equals("UTC")
                || (ZoneId.getAvailableZoneIds().contains(zone)
                        && zone.indexOf('/') > 0
                        && !zone.startsWith("Etc/")
                        && !zone.startsWith("SystemV/"));
    }
}
