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
     * Creates {@code schedule}, or replaces the stored one of that name. The generation stored is
     * {@code schedule}'s or, if that is not above the replaced one's, the replaced one's + 1 (decided
     * under the row's lock, so two puts never share one). Returns the schedule as stored.
     */
    Schedule put(Schedule schedule);

    Optional<Schedule> find(String app, String name);

    /**
     * The job of the schedule's current generation whose occurrence is the latest at or before
     * {@code atMs}, whatever its state (FINISHED, CANCELED by a pause, ...): its occurrence time and
     * id. Empty when no occurrence of the generation has come.
     */
    Optional<SubmittedOccurrence> lastSubmittedAtOrBefore(Schedule schedule, long atMs);

    /** An occurrence and the job submitted for it. */
    record SubmittedOccurrence(long occurrenceAt, long jobId) {}

    /**
     * An app's schedules (all apps' when {@code app} is null) in (app, name) order, after
     * ({@code afterApp}, {@code afterName}) when given.
     */
    List<Schedule> list(String app, String afterApp, String afterName, int limit);

    /** Deletes the schedule; returns it as it was, or empty if there was none. */
    Optional<Schedule> delete(String app, String name);

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
     * The schedule's jobs that have not fired yet (live, DELAYED, no attempt made), of every
     * generation: the job id and the generation its bizKey names.
     */
    List<ScheduledJob> unfiredJobs(String app, String name);

    /** A schedule's job: its id and the generation of the schedule that submitted it. */
    record ScheduledJob(long jobId, long generation) {}

    /**
     * Moves the schedule's next check to {@code until} if it is earlier and the schedule is still at
     * {@code generation}: a pass that failed for a reason a retry at once would meet again.
     */
    void postpone(String app, String name, long generation, long until);
}
