package dev.hourglass.node.cluster;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands this node's shards to the other members while it cannot reach the database
 * (docs/cluster.md, "Network partitions").
 *
 * <p>Why: a node cut off the database but not off ZooKeeper keeps its session, so nothing else
 * would take its shards; every job on them would wait for as long as the cut lasts. Once a second
 * this watch asks the database (on a connection of its own, answer within about 2 s); when no
 * answer came for {@code stepBackAfterMs}, the node steps back ({@link CuratorCoordinator#stepBack}),
 * and at the first answer after that it steps forward. When the database is down for every node,
 * all step back and the master keeps the assignment as it is: nothing moves.
 *
 * <p>Example: {@code stepBackAfterMs} 10,000; the link to the database goes silent at t. Probes at
 * t+1 s … fail (each within ~3 s); at t+10 s the node gives up its shards and announces it, the
 * master hands them on within a second, and their jobs fire on the other nodes from about t+11 s.
 * The attempts the node had claimed but could not send stay RUNNING under its name (it cannot write
 * them back): they end at their deadline and are retried with the backoff.
 *
 * <p>Threads: the decisions are taken on the scheduler's one thread; the probe runs on
 * {@code probes}, one at a time, and reports back to the scheduler.
 */
public final class DatabaseLossWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseLossWatch.class);
    static final long PROBE_EVERY_MS = 1_000;

    /** What the watch steers: the node's place in the assignment. */
    public interface Stance {
        void stepBack(String why);

        void stepForward();
    }

    private final BooleanSupplier databaseAnswers;
    private final Stance stance;
    private final LongSupplier monotonicMillis;
    private final long stepBackAfterMs;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService probes;
    // the scheduler's thread only
    private long lastAnswerAt;
    private boolean probing;
    private boolean steppedBack;

    /**
     * @param databaseAnswers true when the database answered (it must return within a few seconds)
     * @param monotonicMillis elapsed time, not the wall clock: the silence of a link is measured
     * @param stepBackAfterMs how long without an answer before stepping back
     */
    public DatabaseLossWatch(
            BooleanSupplier databaseAnswers,
            Stance stance,
            LongSupplier monotonicMillis,
            long stepBackAfterMs,
            ScheduledExecutorService scheduler,
            ExecutorService probes) {
        this.databaseAnswers = databaseAnswers;
        this.stance = stance;
        this.monotonicMillis = monotonicMillis;
        this.stepBackAfterMs = stepBackAfterMs;
        this.scheduler = scheduler;
        this.probes = probes;
        this.lastAnswerAt = monotonicMillis.getAsLong(); // the node just started on this database
    }

    public DatabaseLossWatch start() {
        scheduler.scheduleWithFixedDelay(this::tick, PROBE_EVERY_MS, PROBE_EVERY_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Once a second: step back if the silence has lasted, and ask again unless a probe is out. */
    void tick() {
        long silent = monotonicMillis.getAsLong() - lastAnswerAt;
        if (!steppedBack && silent >= stepBackAfterMs) {
            steppedBack = true;
            safely(() -> stance.stepBack("no answer from the database for " + silent + " ms"));
        }
        if (probing) {
            return;
        }
        probing = true;
        probes.execute(() -> {
            boolean answered = false;
            try {
                answered = databaseAnswers.getAsBoolean();
            } finally {
                boolean result = answered;
                try {
                    scheduler.execute(() -> probed(result));
                } catch (RejectedExecutionException stopped) {
                    // the watch was closed meanwhile
                }
            }
        });
    }

    /** The probe's answer, on the scheduler's thread. */
    void probed(boolean answered) {
        probing = false;
        if (!answered) {
            return;
        }
        lastAnswerAt = monotonicMillis.getAsLong();
        if (steppedBack) {
            steppedBack = false;
            safely(stance::stepForward);
        }
    }

    private static void safely(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            LOG.warn("changing the node's place in the assignment failed: {}", e.toString());
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        probes.shutdownNow();
    }
}
