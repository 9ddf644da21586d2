package dev.hourglass.node.core.job;

import dev.hourglass.api.JobState;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The allowed state changes of SPEC §1, as one table. Every conditional update in the store names
 * its expected source states from here, so the database enforces exactly this table.
 *
 * <pre>
 * DELAYED  -> RUNNING   claimed by the owner node at the fire time
 * RUNNING  -> FINISHED  success
 * RUNNING  -> DELAYED   failure or timeout with attempts left (retry at now + backoff)
 * RUNNING  -> FAILED    failure with no attempts left
 * DELAYED  -> CANCELED, RUNNING -> CANCELED
 * DELAYED  -> EXPIRED   not firable before fireAt + expireAfter
 * FAILED / CANCELED / EXPIRED -> DELAYED   manual retry
 * </pre>
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
