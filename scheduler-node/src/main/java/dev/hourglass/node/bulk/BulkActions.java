package dev.hourglass.node.bulk;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.JobPage;
import dev.hourglass.node.core.job.JobQuery;
import dev.hourglass.node.core.job.JobTransitions;
import dev.hourglass.node.core.port.AuditLog;
import dev.hourglass.node.manage.JobManager;
import dev.hourglass.node.tenant.Caller;
import java.time.Clock;
import java.util.Set;

/**
 * Actions on every job a filter matches (docs/operations.md, "Bulk actions"): cancel, or retry.
 * Each job goes through the same {@link JobManager} call as a single request — same checks, same
 * conditional transitions, no back door — in pages of {@value #PAGE} found through the search's
 * indexes. A job whose state changed since it was listed is counted as skipped, not an error.
 *
 * <p>Bounded: one request changes at most {@code max} jobs (at most {@value #MAX}) and says whether
 * more match; a dry run counts the matches (up to {@code max}) and changes nothing. Audited: every
 * executed request is recorded with who, when, what and how many ({@link AuditLog}).
 */
public final class BulkActions {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BulkActions.class);
    public static final int PAGE = 500;
    public static final int MAX = 100_000;

    public enum Action {
        CANCEL(JobState.CANCELED, JobState.DELAYED),
        RETRY(JobState.DELAYED, JobState.FAILED);

        /** The state the action moves jobs to, and the state it acts on unless the filter names one. */
        final JobState target;

        final JobState defaultSource;

        Action(JobState target, JobState defaultSource) {
            this.target = target;
            this.defaultSource = defaultSource;
        }

        Set<JobState> sources() {
            return JobTransitions.sourcesOf(target).stream()
                    .filter(s -> this == RETRY ? s.isFinal() : !s.isFinal())
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    /** Which jobs: of one app; {@code service} or {@code bizKeyPrefix} is required. */
    public record Filter(String service, String bizKeyPrefix, JobState state, Long fireFrom, Long fireTo) {}

    /**
     * Records an audit entry. After a failure the write may fail too (the same database): that is
     * logged, and the original failure is what the caller gets.
     */
    private Long recordQuietly(boolean afterFailure, AuditLog.Entry entry) {
        try {
            return audit.record(entry);
        } catch (RuntimeException e) {
            if (!afterFailure) {
                throw e;
            }
            LOG.error(
                    "bulk action stopped part-way and its audit record could not be written: {} {}",
                    entry,
                    e.toString());
            return null;
        }
    }

    public record Outcome(
            Action action,
            JobState state,
            boolean dryRun,
            long matched,
            long changed,
            long skipped,
            boolean more,
            Long auditId) {}

    private final JobManager jobs;
    private final AuditLog audit;
    private final Clock clock;

    public BulkActions(JobManager jobs, AuditLog audit, Clock clock) {
        this.jobs = jobs;
        this.audit = audit;
        this.clock = clock;
    }

    /**
     * @param app the app acted on (the caller's own, or the one the admin named)
     * @param requestJson the request's validated fields as JSON, for the audit record
     */
    public Outcome run(
            Caller caller, String app, Action action, Filter filter, int max, boolean dryRun, String requestJson) {
        if (filter.service() == null && filter.bizKeyPrefix() == null) {
            throw HourglassException.invalid(
                    "service",
                    "a bulk action names a service or a bizKeyPrefix (every job of an app at once is"
                            + " not one request)");
        }
        if (max < 1 || max > MAX) {
            throw HourglassException.invalid("max", "max must be in 1.." + MAX);
        }
        JobState state = filter.state() == null ? action.defaultSource : filter.state();
        if (!action.sources().contains(state)) {
            throw HourglassException.invalid(
                    "state", action + " acts on jobs in " + action.sources() + ", not " + state);
        }
        Long auditId = null;
        long matched = 0;
        long changed = 0;
        long skipped = 0;
        boolean more = false;
        String cursor = null;
        String failure = null;
        try {
            do {
                JobPage page = jobs.search(new JobQuery(
                        app,
                        null,
                        filter.bizKeyPrefix(),
                        state,
                        filter.service(),
                        filter.fireFrom(),
                        filter.fireTo(),
                        PAGE,
                        cursor));
                for (Job job : page.items()) {
                    if (matched == max) {
                        more = true;
                        break;
                    }
                    matched++;
                    if (dryRun) {
                        continue;
                    }
                    try {
                        if (action == Action.CANCEL) {
                            jobs.cancel(caller, job.id());
                        } else {
                            jobs.retry(caller, job.id(), null, null);
                        }
                        changed++;
                    } catch (HourglassException e) {
                        if (e.code() != ErrorCode.CONFLICT && e.code() != ErrorCode.NOT_FOUND) {
                            throw e;
                        }
                        skipped++; // its state changed since it was listed
                    }
                }
                cursor = page.nextCursor();
            } while (cursor != null && !more);
        } catch (RuntimeException e) {
            failure = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw e;
        } finally {
            // what changed is recorded even when the run stopped part-way (the database went away):
            // the operator sees how far it got, and the changes it made stay made
            if (!dryRun && (changed > 0 || skipped > 0 || failure == null)) {
                auditId = recordQuietly(
                        failure != null,
                        new AuditLog.Entry(
                                0,
                                clock.millis(),
                                caller.isAdmin() ? "admin" : "app:" + caller.app(),
                                app,
                                action.name(),
                                requestJson,
                                matched,
                                changed,
                                skipped,
                                failure == null
                                        ? null
                                        : failure.length() <= 500 ? failure : failure.substring(0, 500)));
            }
        }
        return new Outcome(action, state, dryRun, matched, changed, skipped, more, auditId);
    }
}
