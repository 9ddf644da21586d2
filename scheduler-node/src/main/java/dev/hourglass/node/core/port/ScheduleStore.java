package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.schedule.Schedule;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Storage port for recurring schedules (docs/api.md, "Schedules"). A schedule row is the lock that
 * orders everything done to it: a put, a pause and a materialisation pass each lock it, so a pass
 * that read the schedule before a replace or a pause writes nothing of it afterwards.
 */
public interface ScheduleStore {

    /**
     * Creates {@code schedule}, or replaces the stored one of that name (the caller has given it the
     * next generation). Returns the schedule stored before, if any.
     */
    Optional<Schedule> put(Schedule schedule);

    Optional<Schedule> find(String app, String name);

    /**
     * An app's schedules (all apps' when {@code app} is null) in (app, name) order, after
     * ({@code afterApp}, {@code afterName}) when given.
     */
    List<Schedule> list(String app, String afterApp, String afterName, int limit);

    boolean delete(String app, String name);

    /** Names of the app's schedules whose jobs go to {@code service}, at most a few. */
    List<String> namingService(String app, String service);

    /** Pauses or resumes; on resume the cursor moves to {@code now}: time paused is not caught up. */
    Optional<Schedule> setPaused(String app, String name, boolean paused, long now);

    /** Schedules of {@code shards} whose next check is at or before {@code now}, earliest first. */
    List<Schedule> due(Collection<Integer> shards, long now, int limit);

    /**
     * One materialisation pass, in one transaction: if the schedule is still at {@code seen}'s
     * generation and cursor and not paused, inserts {@code jobs} (each bizKey once: one already
     * taken is skipped), and moves the cursor, next check and last occurrence. Returns the jobs
     * inserted, or empty when the schedule had changed (nothing is written then).
     */
    Optional<List<Job>> materialize(Schedule seen, List<Job> jobs, long cursorAt, Long nextCheckAt, long now);

    /**
     * Ids of an app's jobs whose bizKey starts with {@code bizKeyPrefix} (a schedule's, or one
     * generation's) that have not fired yet: live, DELAYED, no attempt made.
     */
    List<Long> unfiredJobs(String app, String bizKeyPrefix);
}
