package dev.hourglass.node.firing;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes attempt results in batches from one thread.
 *
 * <p>Two kinds of failure, told apart by the store:
 *
 * <ul>
 *   <li>the database is unavailable: the same batch is tried again once a second, for
 *       {@value #MAX_TRIES} tries; a batch that still fails is dropped with an error rather than
 *       block every later result. Dropped results, like results still queued at a crash, are lost
 *       from memory only: their jobs are RUNNING in the database and the timeout sweep delivers them
 *       again with the next attempt number (at least once).
 *   <li>the data is refused ({@link PoisonResultException}, e.g. a key the backlog already holds):
 *       the batch is split in halves until the refused result stands alone, so every other result
 *       is written; the refused one is {@linkplain AttemptStore#quarantine quarantined} — its job
 *       ends FAILED with the error in its execution log — and counted.
 * </ul>
 */
final class OutcomeWriter implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(OutcomeWriter.class);
    static final int MAX_TRIES = 60;

    private final AttemptStore store;
    private final Clock clock;
    private final int batchSize;
    private final Consumer<List<AttemptResult>> afterWrite;
    private final FiringListener listener;
    private final LinkedBlockingQueue<AttemptResult> queue = new LinkedBlockingQueue<>();
    private volatile boolean running = true;
    private volatile long stopBy = Long.MAX_VALUE;

    OutcomeWriter(
            AttemptStore store,
            Clock clock,
            int batchSize,
            Consumer<List<AttemptResult>> afterWrite,
            FiringListener listener) {
        this.listener = listener;
        this.store = store;
        this.clock = clock;
        this.batchSize = batchSize;
        this.afterWrite = afterWrite;
    }

    void submit(AttemptResult result) {
        queue.add(result);
    }

    int pending() {
        return queue.size();
    }

    @Override
    public void run() {
        List<AttemptResult> batch = new ArrayList<>(batchSize);
        int tries = 0;
        while (running || !queue.isEmpty() || !batch.isEmpty()) {
            try {
                if (batch.isEmpty()) {
                    AttemptResult first = queue.poll(100, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    queue.drainTo(batch, batchSize - 1);
                }
                write(batch);
                batch = new ArrayList<>(batchSize);
                tries = 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                if (!running && System.currentTimeMillis() >= stopBy) {
                    LOG.error(
                            "stopping with {} attempt results unwritten; their jobs are delivered again after their"
                                    + " timeout: {}",
                            batch.size() + queue.size(),
                            e.toString());
                    return;
                }
                if (++tries >= MAX_TRIES) {
                    LOG.error(
                            "dropping {} attempt results after {} failed writes; their jobs are delivered again"
                                    + " after their timeout: {}",
                            batch.size(),
                            tries,
                            e.toString());
                    batch = new ArrayList<>(batchSize);
                    tries = 0;
                    continue;
                }
                LOG.error("writing {} attempt results failed; retrying in 1 s: {}", batch.size(), e.toString());
                if (!sleepQuietly(
                        running ? 1_000 : Math.max(0, Math.min(1_000, stopBy - System.currentTimeMillis())))) {
                    return;
                }
            }
        }
    }

    /** Writes the batch; a refused result is isolated by halving and quarantined, the rest written. */
    private void write(List<AttemptResult> batch) {
        try {
            long started = System.nanoTime();
            store.record(batch, clock.millis());
            listener.wrote(batch.size(), System.nanoTime() - started);
            afterWrite.accept(batch);
        } catch (PoisonResultException e) {
            if (batch.size() == 1) {
                AttemptResult poison = batch.get(0);
                LOG.error(
                        "job {} attempt {}: its result cannot be written; the job is failed: {}",
                        poison.jobId(),
                        poison.attempt(),
                        e.getMessage());
                store.quarantine(poison, e.getMessage(), clock.millis());
                listener.quarantined(poison);
                return;
            }
            int half = batch.size() / 2;
            write(new ArrayList<>(batch.subList(0, half)));
            write(new ArrayList<>(batch.subList(half, batch.size())));
        }
    }

    /**
     * Asks the thread to finish once the queue is empty; while the database refuses the writes it
     * keeps trying for {@code withinMs}, then ends, leaving the rest unwritten (their jobs stay
     * RUNNING and are delivered again after their timeout) rather than outliving the node.
     */
    void finish(long withinMs) {
        stopBy = System.currentTimeMillis() + withinMs;
        running = false;
    }

    private static boolean sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
