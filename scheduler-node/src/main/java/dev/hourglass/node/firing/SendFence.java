package dev.hourglass.node.firing;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * sender dropped unsent ({@link AttemptStore#unclaim}).
 *
 * <p>A database that cannot be read does not stop deliveries: the attempts were claimed, the node
 * still owns their shards (the sender checked), and a cancel could not have committed either; they
 * are sent, with a warning. A cancel that commits between this check and the send (a few
 * milliseconds) does not stop the attempt.
 */
final class SendFence implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(SendFence.class);
    private static final int MAX_ROUND = 1_000;

    /** What the fence found. Called on the fence's thread: must be quick. */
    interface Verdicts {
        void current(PendingSend send);

        void superseded(PendingSend send);
    }

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

    void giveBack(AttemptStore.ClaimedAttempt attempt) {
        requests.add(attempt);
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
        List<AttemptStore.ClaimedAttempt> giveBacks = new ArrayList<>();
        for (Object r : round) {
            if (r instanceof PendingSend s) {
                checks.add(s);
            } else {
                giveBacks.add((AttemptStore.ClaimedAttempt) r);
            }
        }
        if (!checks.isEmpty()) {
            judge(checks);
        }
        if (!giveBacks.isEmpty()) {
            try {
                store.unclaim(giveBacks, nodeId, clock.millis());
            } catch (RuntimeException e) {
                // they stay RUNNING under this node and are delivered again after their deadline
                LOG.warn("giving back {} unsent attempts failed: {}", giveBacks.size(), e.toString());
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
        for (PendingSend s : checks) {
            Integer attempt = running.get(s.job().id());
            if (attempt != null && attempt == s.job().attempts()) {
                verdicts.current(s);
            } else {
                verdicts.superseded(s);
            }
        }
    }
}
