package dev.hourglass.node.retention;

import dev.hourglass.node.background.Lifecycle;
import dev.hourglass.node.background.Periodic;
import dev.hourglass.node.core.port.Coordination;
import dev.hourglass.node.core.port.RetentionListener;
import dev.hourglass.node.core.port.RetentionStore;
import java.time.Clock;
import java.util.List;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes what has outlived its retention: execution-log rows that finished more than {@code
 * executionLogMs} ago, and final jobs that ended more than {@code backlogMs} ago, each with its
 * execution-log rows and its bizKey.
 *
 * <p>Who: the master only. Before every batch the sweep asks the cluster view whether this node
 * is the master and its ZooKeeper session is connected; a node that is not stops at once. During
 * a change of master two nodes may both be between batches for a moment: harmless, every batch
 * re-checks its condition in the database, and what one node deleted the other no longer finds.
 *
 * <p>How much: a batch is one short transaction of at most {@code batchSize} rows found through an
 * index, oldest first; batches of one run are {@code batchPauseMs} apart, so that the firing
 * engine's transactions get the pages and locks in between; a run does at most {@code
 * maxBatchesPerRun} batches per table and ends a table early when a batch deletes fewer than
 * {@code batchSize} rows (nothing older is left). Worked example with the defaults (1,000 rows,
 * 100 ms pause, 250 batches, runs 60 s apart): a batch takes about 20 ms (execution log) to 45 ms
 * (backlog) on MariaDB, so a run far behind deletes 250,000 rows of each table in about
 * 250 × (100 + 20) ms + 250 × (100 + 45) ms ≈ 66 s, and the next run starts 60 s after it ends:
 * about 2,000 rows/s per table, twice the 1,000 rows/s of each that 1,000 jobs/s create. A run
 * that has caught up costs two index lookups.
 *
 * <p>Threading: runs on one daemon thread of its own; {@link #runOnce()} is for tests and must not
 * be called while {@link #start() started}. Failure: a database error ends the run (logged); each
 * batch is one transaction, so nothing is left half-deleted, and the next run goes on from there.
 */
public final class RetentionSweep implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionSweep.class);
    public static final String EXECUTION_LOG = "job_delay_task_execlog";
    public static final String BACKLOG = "job_delay_task_backlog";
    public static final String BIZ_KEYS = "hg_biz_key";
    /** The tables retention deletes from, as {@link RetentionListener#deleted} names them. */
    public static final List<String> TABLES = List.of(EXECUTION_LOG, BACKLOG, BIZ_KEYS);

    private final RetentionStore store;
    private final Clock clock;
    private final RetentionSettings settings;
    private final Coordination cluster;
    private final RetentionListener listener;
    private Periodic thread;
    private final Lifecycle lifecycle = new Lifecycle("retention sweep");

    public RetentionSweep(
            RetentionStore store,
            Clock clock,
            RetentionSettings settings,
            Coordination cluster,
            RetentionListener listener) {
        this.store = store;
        this.clock = clock;
        this.settings = settings;
        this.cluster = cluster;
        this.listener = listener;
    }

    /** What one run deleted: execution-log rows on their own, and final jobs. */
    public record Run(int executionBatches, long executions, int backlogBatches, long jobs) {}

    /** Runs every {@code intervalMs}, the first run one interval after the start. */
    public synchronized void start() {
        lifecycle.start();
        if (settings.executionLogMs() == 0 && settings.backlogMs() == 0) {
            LOG.info("retention: off (both tables are kept for ever)");
            return;
        }
        thread = Periodic.every("hourglass-retention", settings.intervalMs(), this::runQuietly);
    }

    /** Stops the thread; a batch under way is interrupted between statements or rolled back. */
    @Override
    public synchronized void close() {
        lifecycle.close();
        if (thread != null) {
            thread.close();
            thread = null;
        }
    }

    private void runQuietly() {
        try {
            Run run = runOnce();
            if (run.executions() > 0 || run.jobs() > 0) {
                LOG.info(
                        "retention: deleted {} execution-log rows in {} batches and {} final jobs in {} batches",
                        run.executions(),
                        run.executionBatches(),
                        run.jobs(),
                        run.backlogBatches());
            }
        } catch (RuntimeException e) {
            LOG.warn("retention run failed; the next run goes on: {}", e.toString());
        }
    }

    /** One run: the backlog first (it takes its jobs' attempts along), then the execution log. */
    public Run runOnce() {
        long started = System.nanoTime();
        try {
            long now = clock.millis();
            long[] jobs = {0};
            int backlogBatches = settings.backlogMs() == 0
                    ? 0
                    : sweep(() -> {
                        RetentionStore.Purged p =
                                store.deleteFinalJobsEndedBefore(now - settings.backlogMs(), settings.batchSize());
                        listener.deleted(BACKLOG, p.jobs());
                        listener.deleted(EXECUTION_LOG, p.executions());
                        listener.deleted(BIZ_KEYS, p.bizKeys());
                        jobs[0] += p.jobs();
                        return p.jobs();
                    });
            long[] executions = {0};
            int executionBatches = settings.executionLogMs() == 0
                    ? 0
                    : sweep(() -> {
                        int n = store.deleteExecutionsFinishedBefore(
                                now - settings.executionLogMs(), settings.batchSize());
                        listener.deleted(EXECUTION_LOG, n);
                        executions[0] += n;
                        return n;
                    });
            return new Run(executionBatches, executions[0], backlogBatches, jobs[0]);
        } finally {
            listener.ran(System.nanoTime() - started);
        }
    }

    /** Batches until one is short, the run's budget is spent, or this node is no longer the master. */
    private int sweep(IntSupplier batch) {
        int batches = 0;
        while (batches < settings.maxBatchesPerRun() && cluster.isMaster()) {
            if (batches > 0 && !pause()) {
                break;
            }
            int deleted = batch.getAsInt();
            batches++;
            if (deleted < settings.batchSize()) {
                break;
            }
        }
        return batches;
    }

    private boolean pause() {
        if (settings.batchPauseMs() == 0) {
            return !Thread.currentThread().isInterrupted();
        }
        try {
            Thread.sleep(settings.batchPauseMs());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
