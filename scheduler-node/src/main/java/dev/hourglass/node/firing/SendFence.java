package dev.hourglass.node.firing;

import dev.hourglass.node.job.Job;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last check before an attempt leaves the node: is it still this node's current attempt in the
 * database? A claimed attempt that waited — for its fire time (claimed ahead) or at its service's
 * gate — may have been canceled through another node, or taken over by another node after this one
 * lost its shard (a GC pause or a partition past the session timeout), and must then not be sent.
 * One thread checks every attempt queued since its last round with one indexed read, so the cost is
 * one round trip per wave of sends, not per send. It also writes the give-backs of attempts the
 * sender dropped unsent ({@link AttemptStore#unclaim}), removes the log rows of attempts dropped
 * because their job changed ({@link AttemptStore#forgetUnsent}), and renews the deadline of an
 * attempt that waited at its gate until little of it was left, which doubles as its check
 * ({@link AttemptStore#renewDeadlines}).
 *
 * <p>A database that cannot be read does not stop deliveries: the attempts were claimed, the node
 * still owns their shards (the sender checked), and a cancel could not have committed either; they
 * are sent, with a warning. (An attempt whose deadline could not be renewed is given back instead:
 * with its deadline that near, another node could time it out while it is delivered.) A cancel that commits between this check and the send (a few
 * milliseconds) does not stop the attempt.
 */
final class SendFence implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(SendFence.class);
    private static final int MAX_ROUND = 1_000;

    /** What the fence found and did. Called on the fence's thread: must be quick. */
    interface Verdicts {
        void current(PendingSend send);

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
    private final LinkedBlockingQueue<Object> requests = new LinkedBlockingQueue<>();
    private volatile boolean running = true;

    SendFence(AttemptStore store, String nodeId, Clock clock, Verdicts verdicts) {
        this.store = store;
        this.nodeId = nodeId;
        this.clock = clock;
        this.verdicts = verdicts;
    }

    void check(PendingSend send) {
        requests.add(send);
    }

    /**
     * Checks the attempt like {@link #check} and, if it is still this node's, writes it a fresh
     * deadline first ({@link AttemptStore#renewDeadlines}): it waited at its gate until little of
     * its deadline was left.
     */
    void renewAndCheck(PendingSend send) {
        requests.add(new Renewal(send));
    }

    /** An attempt to renew before its check. */
    private record Renewal(PendingSend send) {}

    /** An attempt dropped unsent whose log row is to go ({@link AttemptStore#forgetUnsent}). */
    private record Forget(AttemptStore.ClaimedAttempt attempt) {}

    /** The attempt was dropped unsent because its job changed (canceled through this node). */
    void forgetUnsent(AttemptStore.ClaimedAttempt attempt) {
        requests.add(new Forget(attempt));
    }

    void giveBack(Job claimed) {
        requests.add(new GiveBack(claimed));
    }

    /** Finishes the requests queued so far, then ends the thread. */
    void finish() {
        running = false;
    }

    @Override
    public void run() {
        List<Object> round = new ArrayList<>();
        while (running || !requests.isEmpty()) {
            try {
                Object first = requests.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                round.add(first);
                requests.drainTo(round, MAX_ROUND - 1);
                handle(round);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.error("send fence round failed", e);
            } finally {
                round.clear();
            }
        }
    }

    private void handle(List<Object> round) {
        List<PendingSend> checks = new ArrayList<>();
        List<Job> giveBacks = new ArrayList<>();
        List<PendingSend> renewals = new ArrayList<>();
        List<AttemptStore.ClaimedAttempt> forgotten = new ArrayList<>();
        for (Object r : round) {
            if (r instanceof PendingSend s) {
                checks.add(s);
            } else if (r instanceof Renewal renewal) {
                renewals.add(renewal.send());
            } else if (r instanceof Forget f) {
                forgotten.add(f.attempt());
            } else {
                giveBacks.add(((GiveBack) r).job());
            }
        }
        forget(forgotten);
        if (!renewals.isEmpty()) {
            renew(renewals);
        }
        if (!checks.isEmpty()) {
            judge(checks);
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
                // the log keeps their claimed rows open: they read as claimed, never as ended
                LOG.warn("removing the log rows of {} attempts not sent failed: {}", superseded.size(), e.toString());
            }
        }
    }

    private void judge(List<PendingSend> checks) {
        Map<Long, Integer> running;
        try {
            running =
                    store.runningAttempts(checks.stream().map(s -> s.job().id()).toList(), nodeId);
        } catch (RuntimeException e) {
            LOG.warn("could not check {} attempts before sending; sending them: {}", checks.size(), e.toString());
            checks.forEach(verdicts::current);
            return;
        }
        List<AttemptStore.ClaimedAttempt> superseded = new ArrayList<>();
        for (PendingSend s : checks) {
            Integer attempt = running.get(s.job().id());
            if (attempt != null && attempt == s.job().attempts()) {
                verdicts.current(s);
            } else {
                verdicts.superseded(s);
                superseded.add(s.attempt());
            }
        }
        forget(superseded);
    }
}
