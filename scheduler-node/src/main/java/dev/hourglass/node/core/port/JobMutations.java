package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.AttemptHolderUnreachableException;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.JobTransitions;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Storage port for the management state changes. Each is one conditional update: it applies only
 * from the source states {@link JobTransitions} allows, and returns the job as it is after the
 * change, or empty when the job was not in such a state (or is another app's).
 */
public interface JobMutations {

    /**
     * Changes a DELAYED job. A null field keeps its value; a new fire time also moves the expiry,
     * and a new shard moves the job to another node's memory (a near-term job goes to the shards of
     * the node that received the change, like a new one).
     */
    Optional<Job> reschedule(
            long id, String app, Long fireAt, Integer shard, String payload, Map<String, String> attributes, long now);

    /**
     * DELAYED or RUNNING to CANCELED (into the backlog). The cancel's time is read from {@code now}
     * once the job is locked, so an attempt the owner sent while the cancel waited for the lock
     * (its claim held it) shows in the log as sent before the cancel, as it was. A RUNNING job's
     * attempt is withheld through {@code holders} while the job is locked: one withheld is undone
     * (no attempt, no log row); one under way may still arrive, and the job's record says so.
     *
     * @throws AttemptHolderUnreachableException its holder did not answer: nothing was changed
     */
    Optional<Job> cancel(long id, String app, LongSupplier now, AttemptHolders holders);

    /**
     * FAILED, CANCELED or EXPIRED back to DELAYED at {@code fireAt} in shard {@code shard}, with a
     * fresh attempt budget.
     */
    Optional<Job> revive(long id, String app, long fireAt, int shard, long now);
}
