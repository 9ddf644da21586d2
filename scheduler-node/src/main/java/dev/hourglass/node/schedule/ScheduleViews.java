package dev.hourglass.node.schedule;

import dev.hourglass.api.ScheduleView;
import dev.hourglass.node.core.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;

/** Schedules as the Dubbo API shows them ({@link ScheduleView}), the same fields as HTTP's. */
public final class ScheduleViews {
    private ScheduleViews() {}

    public static ScheduleView of(ScheduleCommands.View view) {
        Schedule s = view.schedule();
        ScheduleView v = new ScheduleView()
                .setName(s.name())
                .setApp(s.app())
                .setService(s.service())
                .setShard(s.shard())
                .setCron(s.cron())
                .setEvery(
                        s.everyMs() == null
                                ? null
                                : Duration.ofMillis(s.everyMs()).toString())
                .setTimeZone(s.timeZone())
                .setPayload(s.payload())
                .setStartAt(instant(s.startAt()))
                .setEndAt(instant(s.endAt()))
                .setMisfire(s.misfire().name())
                .setCatchUpWindowMs(s.catchUpWindowMs())
                .setOverlap(s.overlap().name())
                .setPaused(s.paused())
                .setPausedAt(instant(s.pausedAt()))
                .setMaxAttempts(s.maxAttempts())
                .setTimeoutMs(s.timeoutMs())
                .setExpireAfterMs(s.expireAfterMs())
                .setGeneration(s.generation())
                .setLastOccurrenceAt(instant(view.lastOccurrenceAt()))
                .setLastJobId(view.lastJobId() == null ? null : Long.toString(view.lastJobId()))
                .setLastJobState(view.lastJob() == null ? null : view.lastJob().state())
                .setCreatedAt(Instant.ofEpochMilli(s.createdAt()))
                .setUpdatedAt(Instant.ofEpochMilli(s.updatedAt()));
        v.getAttributes().putAll(s.attributes());
        view.nextFireTimes().forEach(t -> v.getNextFireTimes().add(Instant.ofEpochMilli(t)));
        return v;
    }

    private static Instant instant(Long epochMs) {
        return epochMs == null ? null : Instant.ofEpochMilli(epochMs);
    }
}
