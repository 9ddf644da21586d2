package dev.hourglass.node.firing;

import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.port.PoisonResultException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes attempt results in batches from one thread. A write waits {@code lingerMs} after its first
 * result for the others of that time: a result transaction costs about the same for one job as for
 * dozens, so at a steady rate the linger saves a commit per job.
 *
 * <p>Two kinds of failure, told apart by the store:
 *
 * <ul>
 *   <li>the database is unavailable or refuses writes (down, read-only during a switchover, a full
 *       disk: {@link StoreUnavailableException}): the same batch is tried again once a second for as
 *       long as that lasts. Such a result is never dropped: a dropped SUCCESS would leave its job RUNNING, and the timeout sweep would
 *       deliver it again. Memory stays bounded while the writes fail: results come from the
 *       deliveries under way when they began (claims are writes too, so no new ones start) and from
 *       the timeout sweep, which queues at most one result per attempt — it skips an attempt that
 *       has one {@linkplain #isPending pending} — and a sweep's result for an attempt already
 *       pending is not queued twice. Only a stop's deadline leaves results unwritten (their jobs
 *       are RUNNING in the database and are delivered again). A batch that fails otherwise (a
 *       defect, not the database) is dropped after {@value #MAX_TRIES_UNEXPECTED} tries, so that it
 *       cannot hold back every later result.
 *   <li>the data is refused ({@link PoisonResultException}, e.g. a key the backlog already holds):
 *       the batch is split in halves until the refused result stands alone, so every other result
 *       is written; the refused one is {@linkplain AttemptStore#quarantine quarantined} — its job
 *       ends FAILED with the error in its execution log — and counted.
 * </ul>
 */
final class OutcomeWriter implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(OutcomeWriter.class);
    /** While writes fail, one error line per this many failed tries (once a second each). */
    static final int LOG_EVERY_TRIES = 60;
    /** Tries of a batch that fails otherwise than by the database being unavailable. */
    static final int MAX_TRIES_UNEXPECTED = 60;

    private final AttemptStore store;
    private final Clock clock;
    private final int batchSize;
    private final long lingerMs;
    private final Consumer<List<AttemptResult>> afterWrite;
    private final FiringListener listener;
    private final LinkedBlockingQueue<AttemptResult> queue = new LinkedBlockingQueue<>();
    /** Attempts with a result queued or being written, and how many results each has there. */
    private final ConcurrentHashMap<AttemptKey, Integer> pending = new ConcurrentHashMap<>();

    private record AttemptKey(long jobId, int attempt) {
        static AttemptKey of(AttemptResult r) {
            return new AttemptKey(r.jobId(), r.attempt());
        }
    }

    private volatile boolean running = true;
    private volatile long stopBy = Long.MAX_VALUE;

    OutcomeWriter(
            AttemptStore store,
            Clock clock,
            int batchSize,
            long lingerMs,
            Consumer<List<AttemptResult>> afterWrite,
            FiringListener listener) {
        this.listener = listener;
        this.store = store;
        this.clock = clock;
        this.batchSize = batchSize;
        this.lingerMs = lingerMs;
        this.afterWrite = afterWrite;
    }

    /**
     * Queues a result. A result decided from a read of the job (the timeout sweep's: it carries the
     * version it read) is not queued when its attempt already has one pending: the first result of
     * an attempt is the one applied, and a sweep that runs every second while writes fail would
     * otherwise queue the same TIMEOUTs again and again.
     */
    void submit(AttemptResult result) {
        AttemptKey key = AttemptKey.of(result);
        if (result.readVersion() != null) {
            boolean[] queued = {false};
            pending.compute(key, (k, n) -> {
                if (n != null) {
                    return n;
                }
                queued[0] = true;
                return 1;
            });
            if (!queued[0]) {
                return;
            }
        } else {
            pending.merge(key, 1, Integer::sum);
        }
        queue.add(result);
    }

    /** Whether the attempt has a result queued or being written. */
    boolean isPending(long jobId, int attempt) {
        return pending.containsKey(new AttemptKey(jobId, attempt));
    }

    int pending() {
        return queue.size();
    }

    private void done(List<AttemptResult> batch) {
        for (AttemptResult r : batch) {
            pending.computeIfPresent(AttemptKey.of(r), (k, n) -> n == 1 ? null : n - 1);
        }
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
                    if (batch.size() < batchSize && lingerMs > 0 && running) {
                        // a write costs about the same for one result as for dozens (one commit):
                        // at a steady rate, waiting a few ms gathers the results of that time
                        Thread.sleep(lingerMs);
                        queue.drainTo(batch, batchSize - batch.size());
                    }
                }
                write(batch);
                done(batch);
                batch = new ArrayList<>(batchSize);
                if (tries > 0) {
                    LOG.info("attempt results are written again after {} failed tries", tries);
                }
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
                if (!(e instanceof StoreUnavailableException) && tries >= MAX_TRIES_UNEXPECTED) {
                    // not the database being away or refusing writes: a defect that retrying will
                    // not mend; dropped so that it cannot hold back every later result
                    LOG.error(
                            "dropping {} attempt results after {} failed writes; their jobs are delivered again"
                                    + " after their timeout: {}",
                            batch.size(),
                            tries,
                            e.toString());
                    done(batch);
                    batch = new ArrayList<>(batchSize);
                    tries = 0;
                    continue;
                }
                if (tries++ % LOG_EVERY_TRIES == 0) {
                    LOG.error(
                            "writing {} attempt results failed ({} more queued); retrying every second: {}",
                            batch.size(),
                            queue.size(),
                            e.toString());
                }
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
