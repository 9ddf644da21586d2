package dev.hourglass.node.firing;

import dev.hourglass.node.background.BatchLoop;
import dev.hourglass.node.background.TaskScheduler;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.port.PoisonResultException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes attempt results in batches, one batch at a time, on the engine's result scheduler
 * ({@link BatchLoop}). A write waits {@code lingerMs} after its first
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
final class OutcomeWriter {
    private static final Logger LOG = LoggerFactory.getLogger(OutcomeWriter.class);
    /** While writes fail, one error line per this many failed tries (once a second each). */
    static final int LOG_EVERY_TRIES = 60;
    /** Tries of a batch that fails otherwise than by the database being unavailable. */
    static final int MAX_TRIES_UNEXPECTED = 60;
    /** While the database refuses the writes, a batch is tried again this often. */
    private static final long RETRY_MS = 1_000;

    private final AttemptStore store;
    private final Clock clock;
    private final Consumer<List<AttemptResult>> afterWrite;
    private final FiringListener listener;
    private final TaskScheduler scheduler;
    private final BatchLoop<AttemptResult> loop;
    /** Attempts with a result queued or being written, and how many results each has there. */
    private final ConcurrentHashMap<AttemptKey, Integer> pending = new ConcurrentHashMap<>();

    private record AttemptKey(long jobId, int attempt) {
        static AttemptKey of(AttemptResult r) {
            return new AttemptKey(r.jobId(), r.attempt());
        }
    }

    /** Failed tries of the batch being written; the writer's runs only (one at a time). */
    private int tries;

    /**
     * When a stop's wait for the writes ends ({@link TaskScheduler#nanoTime()}); null until a stop.
     * One field, so a write failing as the stop begins never sees the one without the other.
     */
    private volatile Long stopBy;

    OutcomeWriter(
            AttemptStore store,
            TaskScheduler scheduler,
            Clock clock,
            int batchSize,
            long lingerMs,
            Consumer<List<AttemptResult>> afterWrite,
            FiringListener listener) {
        this.listener = listener;
        this.store = store;
        this.clock = clock;
        this.afterWrite = afterWrite;
        this.scheduler = scheduler;
        this.loop = new BatchLoop<>("result writer", scheduler, batchSize, lingerMs, this::writeBatch);
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
        loop.add(result);
    }

    /** Whether the attempt has a result queued or being written. */
    boolean isPending(long jobId, int attempt) {
        return pending.containsKey(new AttemptKey(jobId, attempt));
    }

    int pending() {
        return loop.queued();
    }

    private void done(List<AttemptResult> batch) {
        for (AttemptResult r : batch) {
            pending.computeIfPresent(AttemptKey.of(r), (k, n) -> n == 1 ? null : n - 1);
        }
    }

    /** One batch: written, or handed again a second later while the database refuses it. */
    private void writeBatch(List<AttemptResult> batch) {
        try {
            write(batch);
            done(batch);
            if (tries > 0) {
                LOG.info("attempt results are written again after {} failed tries", tries);
            }
            tries = 0;
        } catch (RuntimeException e) {
            Long stopping = stopBy;
            long leftNanos = stopping == null ? Long.MAX_VALUE : stopping - scheduler.nanoTime();
            if (leftNanos <= 0) {
                LOG.error(
                        "stopping with {} attempt results unwritten; their jobs are delivered again after their"
                                + " timeout: {}",
                        batch.size() + loop.queued(),
                        e.toString());
                done(batch);
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
                tries = 0;
                return;
            }
            if (tries++ % LOG_EVERY_TRIES == 0) {
                LOG.error(
                        "writing {} attempt results failed ({} more queued); retrying every second: {}",
                        batch.size(),
                        loop.queued(),
                        e.toString());
            }
            throw new BatchLoop.RetryLater(
                    stopping != null
                            ? Math.max(0, Math.min(RETRY_MS, TimeUnit.NANOSECONDS.toMillis(leftNanos)))
                            : RETRY_MS);
        }
    }

    /** Writes the batch; a refused result is isolated by halving and quarantined, the rest written. */
    private void write(List<AttemptResult> batch) {
        try {
            long started = scheduler.nanoTime();
            java.util.Set<Long> ended = store.record(batch, clock.millis());
            listener.wrote(batch.size(), scheduler.nanoTime() - started);
            // a result for an attempt that is no longer current changed nothing: nothing follows it
            afterWrite.accept(batch.stream()
                    .filter(r -> r.isSentOnly() || ended.contains(r.jobId()))
                    .toList());
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
     * Writes what is queued now without lingering, and what comes meanwhile; while the database
     * refuses the writes it keeps trying for {@code withinMs}, then ends, leaving the rest unwritten
     * (their jobs stay RUNNING and are delivered again after their timeout) rather than outliving
     * the node. Returns whether everything was written.
     */
    boolean finish(long withinMs) {
        stopBy = scheduler.nanoTime() + TimeUnit.MILLISECONDS.toNanos(withinMs);
        return loop.finish(withinMs);
    }
}
