package dev.hourglass.node.schedule;

import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.node.background.PeriodicTask;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.CronSyntax;
import dev.hourglass.node.core.port.ScheduleStore;
import dev.hourglass.node.core.schedule.MaterializationPlanner;
import dev.hourglass.node.core.schedule.MaterializationPlanner.Plan;
import dev.hourglass.node.core.schedule.MaterializationPlanner.Planned;
import dev.hourglass.node.core.schedule.Overlap;
import dev.hourglass.node.core.schedule.Schedule;
import dev.hourglass.node.core.schedule.Series;
import dev.hourglass.node.core.shard.ShardOwnership;
import dev.hourglass.node.manage.JobManager;
import dev.hourglass.node.tenant.Caller;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits the jobs of the schedules of this node's shards, ahead of their fire times
 * ({@link MaterializationPlanner}): each run reads the schedules whose next check has come, a page
 * at a time through an index ({@code hg_schedule (shard, next_check_at)}), and makes one pass of
 * each. 100,000 schedules cost a run one range read per page of the due ones, never a scan.
 *
 * <p>Exactly one job per occurrence: a pass is one transaction that locks the schedule's row and
 * writes only if the schedule is still where the pass read it (generation, cursor, not paused), and
 * each job's bizKey is the occurrence's, taken in that transaction. A node that lost the shard, or
 * raced another pass, or was paused, writes nothing; a node killed mid-pass wrote nothing (or all
 * of it), and the next owner goes on from the cursor.
 *
 * <p>{@code overlap: SKIP}: one occurrence at a time. The next is submitted once the previous job
 * is no longer live; while it is, the schedule is looked at again when that job can have ended
 * (its fire time, then its deadline) and at the latest at the next occurrence's time, when that
 * occurrence is skipped if the previous job is still live. So a daily schedule costs a few passes
 * a day; an occurrence whose predecessor ended within its last second may fire up to a run (500
 * ms) late.
 *
 * <p>Threading: {@link #run()} on one thread (the node's periodic thread); {@link #passNow} from any
 * thread (a put or resume through this node), which is safe for the reason above.
 */
public final class MaterializeSchedulesTask implements PeriodicTask {
    private static final Logger LOG = LoggerFactory.getLogger(MaterializeSchedulesTask.class);
    /** Schedules read per page; a run goes on while pages come back full, up to {@link #MAX_PAGES}. */
    static final int PAGE = 500;

    static final int MAX_PAGES = 20;
    /** The least time before an {@code overlap: SKIP} schedule whose previous job is live is looked at again. */
    static final long OVERLAP_RECHECK_MS = 1_000;
    /** When a schedule whose jobs its service refuses is looked at again. */
    static final long RETRY_LATER_MS = 60_000;

    /** @param lookaheadMs how far ahead occurrences are submitted; @param graceMs see the planner */
    public record Settings(long lookaheadMs, long graceMs) {
        public static final Settings DEFAULTS = new Settings(30_000, 60_000);
    }

    private final ScheduleStore store;
    private final JobManager jobs;
    private final CronSyntax cronSyntax;
    private final ShardOwnership ownership;
    private final MaterializationPlanner planner;
    private final Clock clock;

    public MaterializeSchedulesTask(
            ScheduleStore store,
            JobManager jobs,
            CronSyntax cronSyntax,
            ShardOwnership ownership,
            Settings settings,
            Clock clock) {
        this.store = store;
        this.jobs = jobs;
        this.cronSyntax = cronSyntax;
        this.ownership = ownership;
        this.planner = new MaterializationPlanner(settings.lookaheadMs(), settings.graceMs());
        this.clock = clock;
    }

    @Override
    public String name() {
        return "materialize schedules";
    }

    @Override
    public void run() {
        for (int page = 0; page < MAX_PAGES; page++) {
            List<Integer> shards = ownership.current();
            if (shards.isEmpty() || !ownership.leaseHeld()) {
                return;
            }
            long now = clock.millis();
            List<Schedule> due = store.due(shards, now, PAGE);
            for (Schedule s : due) {
                if (ownership.mayFire(s.shard())) {
                    passNow(s);
                }
            }
            if (due.size() < PAGE) {
                return;
            }
        }
    }

    /**
     * One pass of {@code s} as read: writes nothing if it changed since. Returns the jobs submitted.
     * A failure is logged; the schedule's next check stays, so the next run tries again.
     */
    public List<Job> passNow(Schedule s) {
        long now = clock.millis();
        try {
            return pass(s, now);
        } catch (HourglassException e) {
            // the schedule no longer fits its service (deleted meanwhile, or changed): looked at
            // again in a minute rather than at every run, where it would crowd out the others
            LOG.warn(
                    "schedule {}: no job submitted, looked at again in {} s: {}",
                    s.key(),
                    RETRY_LATER_MS / 1_000,
                    e.getMessage());
            postponeQuietly(s, now + RETRY_LATER_MS);
            return List.of();
        } catch (RuntimeException e) {
            LOG.warn("schedule {}: pass failed, tried again at the next run: {}", s.key(), e.toString());
            return List.of();
        }
    }

    private void postponeQuietly(Schedule s, long until) {
        try {
            store.postpone(s.app(), s.name(), s.generation(), until);
        } catch (RuntimeException e) {
            LOG.debug("schedule {}: not postponed: {}", s.key(), e.toString());
        }
    }

    private List<Job> pass(Schedule s, long now) {
        if (s.paused()) {
            return List.of();
        }
        Series series = ScheduleCommands.seriesOf(s, cronSyntax);
        Plan plan = planner.plan(series, s.cursorAt(), now, s.misfire(), s.catchUpWindowMs());
        List<Planned> planned = plan.jobs();
        long cursor = plan.cursorMs();
        Long nextCheck = plan.nextCheckMs();
        if (s.overlap() == Overlap.SKIP && !planned.isEmpty()) {
            Planned first = planned.get(0);
            Job previous = livePrevious(s);
            if (previous != null) {
                if (first.fireAtMs() > now) {
                    // not yet (no job, the cursor stays): looked at again once the previous job can
                    // have ended (its fire time while DELAYED, its deadline while RUNNING), at the
                    // latest at the occurrence's time, which decides it
                    planned = List.of();
                    cursor = s.cursorAt();
                    nextCheck = Math.min(first.fireAtMs(), Math.max(now + OVERLAP_RECHECK_MS, previous.dueAt()));
                } else {
                    planned = List.of(); // its time came while the previous job is live: skipped
                    cursor = first.occurrenceMs();
                    nextCheck = now;
                }
            } else {
                planned = List.of(first);
                cursor = first.occurrenceMs();
                OptionalLong after = series.firstAfter(cursor);
                nextCheck = after.isPresent() ? Long.valueOf(now) : null; // the next waits for this one
            }
        }
        List<Job> made = new ArrayList<>(planned.size());
        JobManager.JobTemplate template = ScheduleCommands.templateOf(s);
        for (Planned p : planned) {
            made.add(jobs.jobOf(
                    s.app(),
                    template,
                    s.bizKeyOf(p.occurrenceMs()),
                    Map.of(
                            Schedule.ATTRIBUTE_SCHEDULE,
                            s.name(),
                            Schedule.ATTRIBUTE_OCCURRENCE,
                            Long.toString(p.occurrenceMs())),
                    p.fireAtMs(),
                    now));
        }
        List<Job> stored = store.materialize(s, made, cursor, nextCheck, now).orElse(List.of());
        jobs.admit(stored);
        return stored;
    }

    /** The job of the schedule's last occurrence if it is live (DELAYED or RUNNING), else null. */
    private Job livePrevious(Schedule s) {
        if (s.lastJobId() == null) {
            return null;
        }
        try {
            Job job = jobs.get(Caller.ofApp(s.app()), s.lastJobId());
            return job.state() == JobState.DELAYED || job.state() == JobState.RUNNING ? job : null;
        } catch (HourglassException gone) {
            return null;
        }
    }
}
