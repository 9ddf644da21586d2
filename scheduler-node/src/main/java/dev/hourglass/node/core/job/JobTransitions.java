package dev.hourglass.node.core.job;

import dev.hourglass.api.JobState;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The allowed changes of a job's state, as one table: the state diagram of docs/api.md ("Job
 * states"). Every statement of the store that changes a job's state is conditional: its {@code
 * WHERE} names the source states, as literals in JobMapper.xml or, where its caller passes them
 * (cancel, manual retry), as {@link #sourcesOf} the target. JobStatementsTest reads every such
 * statement, checks each change it can make against this table, and checks that each change of the
 * table is made by some statement: the database makes exactly these changes.
 *
 * <pre>
 * DELAYED  -> RUNNING   claimed by the owner node at the fire time                      (claim)
 * RUNNING  -> FINISHED  success                                                         (BacklogRowInsert)
 * RUNNING  -> DELAYED   failure or timeout with attempts left: retry at now + backoff   (retryLater)
 * RUNNING  -> DELAYED   an attempt that never left, given back to be claimed again
 *                       under the same number (its node let go, or a cancel withheld it) (unclaim)
 * RUNNING  -> FAILED    failure with no attempts left                                   (BacklogRowInsert)
 * RUNNING  -> FAILED    a result the database refuses to take                           (failInPlace)
 * DELAYED  -> CANCELED, RUNNING -> CANCELED   cancel                                    (markFinal)
 * DELAYED  -> EXPIRED   not firable before fireAt + expireAfter                         (expire)
 * FAILED / CANCELED / EXPIRED -> DELAYED   manual retry, from the backlog               (revive)
 * </pre>
 *
 * (In parentheses: the statements of JobMapper.xml that make the change.) Not changes, so not in
 * the table: a job is created DELAYED, and the move of an ended job to the backlog keeps its state.
 */
public final class JobTransitions {
    private static final Map<JobState, Set<JobState>> ALLOWED = new EnumMap<>(JobState.class);

    static {
        allow(JobState.DELAYED, JobState.RUNNING, JobState.CANCELED, JobState.EXPIRED);
        allow(JobState.RUNNING, JobState.FINISHED, JobState.DELAYED, JobState.FAILED, JobState.CANCELED);
        allow(JobState.FAILED, JobState.DELAYED);
        allow(JobState.CANCELED, JobState.DELAYED);
        allow(JobState.EXPIRED, JobState.DELAYED);
        allow(JobState.FINISHED);
    }

    private JobTransitions() {}

    private static void allow(JobState from, JobState... to) {
        ALLOWED.put(from, to.length == 0 ? EnumSet.noneOf(JobState.class) : EnumSet.of(to[0], to));
    }

    public static boolean isAllowed(JobState from, JobState to) {
        return ALLOWED.get(from).contains(to);
    }

    /** The states from which {@code to} may be entered. */
    public static Set<JobState> sourcesOf(JobState to) {
        Set<JobState> sources = EnumSet.noneOf(JobState.class);
        ALLOWED.forEach((from, targets) -> {
            if (targets.contains(to)) {
                sources.add(from);
            }
        });
        return sources;
    }

    /** Throws when {@code from -> to} is not in the table. */
    public static void check(JobState from, JobState to) {
        if (!isAllowed(from, to)) {
            throw new IllegalStateException("job state change " + from + " -> " + to + " is not allowed");
        }
    }
}
