package dev.hourglass.node.firing;

import dev.hourglass.node.background.BatchLoop;
import dev.hourglass.node.background.TaskScheduler;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AttemptStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sender's database writes, on a scheduler of their own so that no send waits for them: the
 * give-backs of attempts the sender dropped unsent ({@link AttemptStore#unclaim}), and the renewal
 * of the deadline of an attempt that waited at its gate until little of it was left ({@link
 * AttemptStore#renewDeadlines}), which doubles as a check that the attempt is still this node's.
 * Each round writes every request queued since the last one, so the cost is one round trip per
 * wave, not per attempt. These are off the normal path: an attempt sent on time at an open gate
 * meets none of them (docs/design.md, "No database read at the fire time").
 *
 * <p>An attempt whose deadline could not be renewed (the database failed) is given back instead:
 * with its deadline that near, another node could time it out while it is delivered.
 */
final class SendFence {
    private static final Logger LOG = LoggerFactory.getLogger(SendFence.class);
    private static final int MAX_ROUND = 1_000;

    /** What the fence found and did. Called on the fence's thread: must be quick. */
    interface Verdicts {
        /** Renewed: still this node's attempt, with a fresh deadline. */
        void current(PendingSend send);

        /** Not renewed because it is not this node's current attempt any more (canceled, taken over). */
        void superseded(PendingSend send);

        /** These jobs' unsent attempts were given back (those still this node's are DELAYED again). */
        void givenBack(List<Job> jobs);

        /** The attempt's deadline could not be renewed (the database failed): it is not to be sent. */
        void notRenewed(PendingSend send);
    }

    /** A claimed attempt to give back unsent. */
    private record GiveBack(Job job) {}

    private final AttemptStore store;
    private final String nodeId;
    private final Clock clock;
    private final Verdicts verdicts;
    private final BatchLoop<Object> requests;

    SendFence(AttemptStore store, String nodeId, Clock clock, TaskScheduler scheduler, Verdicts verdicts) {
        this.requests = new BatchLoop<>("send fence", scheduler, MAX_ROUND, 0, this::handle);
        this.store = store;
        this.nodeId = nodeId;
        this.clock = clock;
        this.verdicts = verdicts;
    }

    /**
     * Writes the attempt a fresh deadline if it is still this node's ({@link
     * AttemptStore#renewDeadlines}): it waited at its gate until little of its deadline was left.
     */
    void renew(PendingSend send) {
        requests.add(new Renewal(send));
    }

    /** An attempt to renew before its check. */
    private record Renewal(PendingSend send) {}

    void giveBack(Job claimed) {
        requests.add(new GiveBack(claimed));
    }

    /** Writes the requests queued so far, for up to {@code withinMs}; returns whether all were. */
    boolean finish(long withinMs) {
        return requests.finish(withinMs);
    }

    private void handle(List<Object> round) {
        List<Job> giveBacks = new ArrayList<>();
        List<PendingSend> renewals = new ArrayList<>();
        for (Object r : round) {
            if (r instanceof Renewal renewal) {
                renewals.add(renewal.send());
            } else {
                giveBacks.add(((GiveBack) r).job());
            }
        }
        if (!renewals.isEmpty()) {
            renew(renewals);
        }
        if (!giveBacks.isEmpty()) {
            try {
                store.unclaim(
                        giveBacks.stream()
                                .map(j -> new AttemptStore.ClaimedAttempt(j.id(), j.attempts()))
                                .toList(),
                        nodeId,
                        clock.millis());
            } catch (RuntimeException e) {
                // they stay RUNNING under this node and are delivered again after their deadline
                LOG.warn("giving back {} unsent attempts failed: {}", giveBacks.size(), e.toString());
                return;
            }
            verdicts.givenBack(giveBacks);
        }
    }

    /** A renewed attempt is current (the update was conditional on it); one not renewed is not. */
    private void renew(List<PendingSend> renewals) {
        Set<Long> renewed;
        long now = clock.millis();
        try {
            renewed = store.renewDeadlines(
                    renewals.stream().map(PendingSend::attempt).toList(), nodeId, now);
        } catch (RuntimeException e) {
            // not sent with its deadline this near: given back, as before there were renewals
            LOG.warn(
                    "could not renew {} attempts near their deadline; giving them back: {}",
                    renewals.size(),
                    e.toString());
            renewals.forEach(verdicts::notRenewed);
            return;
        }
        List<AttemptStore.ClaimedAttempt> superseded = new ArrayList<>();
        for (PendingSend s : renewals) {
            if (renewed.contains(s.job().id())) {
                s.renewed(now + s.job().timeoutMs()); // as the update wrote it
                verdicts.current(s);
            } else {
                verdicts.superseded(s);
                superseded.add(s.attempt());
            }
        }
        forget(superseded);
    }

    private void forget(List<AttemptStore.ClaimedAttempt> superseded) {
        if (!superseded.isEmpty()) {
            try {
                store.forgetUnsent(superseded);
            } catch (RuntimeException e) {
                // claims write no log row since V14; an open row left (a cancel's, or an older
                // node's claim) reads as under way, never as ended
                LOG.warn("removing open log rows of {} attempts not sent failed: {}", superseded.size(), e.toString());
            }
        }
    }
}
