package dev.hourglass.node.background;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests queued from any thread and handled in batches, one batch at a time, on a {@link
 * TaskScheduler}: the one home of the "take the first, gather what else is there, handle, repeat"
 * loop of the result writer and the send fence.
 *
 * <p>A batch is taken {@code lingerMs} after the first request of it arrives (0: at once), so the
 * requests of that moment share one database round trip; at most {@code maxBatch} requests go in a
 * batch. The handler may ask for the same batch again later ({@link RetryLater}), e.g. while the
 * database is away; nothing else is handled meanwhile, so requests keep their order.
 *
 * <p>Thread-safety: {@link #add} from any thread. The scheduler must have one thread (the
 * engine's result and fence schedulers do): runs never overlap then, even when {@link #finish}
 * moves a lingering run forward.
 */
public final class BatchLoop<T> {
    private static final Logger LOG = LoggerFactory.getLogger(BatchLoop.class);

    /** Handles one batch. Throwing {@link RetryLater} hands the same batch again after its delay. */
    public interface Handler<T> {
        void handle(List<T> batch);
    }

    /** Thrown by a handler: hand this batch again after {@code delayMs}. */
    public static final class RetryLater extends RuntimeException {
        private final long delayMs;

        public RetryLater(long delayMs) {
            super(null, null, false, false);
            this.delayMs = delayMs;
        }
    }

    private final String name;
    private final TaskScheduler scheduler;
    private final int maxBatch;
    private final long lingerMs;
    private final Handler<T> handler;
    private final ConcurrentLinkedQueue<T> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    /** A run is planned or under way: {@link #add} plans none then. */
    private final AtomicBoolean armed = new AtomicBoolean();
    /** The run planned and not started yet, so a finish can bring it forward. */
    private final Object planLock = new Object();

    private TaskScheduler.Scheduled plannedRun;
    /** The batch a handler asked to have again; the runs' thread only. */
    private volatile List<T> retrying;

    private volatile boolean finishing;

    public BatchLoop(String name, TaskScheduler scheduler, int maxBatch, long lingerMs, Handler<T> handler) {
        this.name = name;
        this.scheduler = scheduler;
        this.maxBatch = maxBatch;
        this.lingerMs = lingerMs;
        this.handler = handler;
    }

    public void add(T request) {
        queue.add(request);
        queued.incrementAndGet();
        if (armed.compareAndSet(false, true)) {
            plan(finishing ? 0 : lingerMs);
        }
    }

    /** Plans a run; a scheduler that refuses (not started) leaves the loop unarmed, not stuck. */
    private void plan(long afterMs) {
        synchronized (planLock) {
            try {
                plannedRun = scheduler.after(afterMs, this::run);
            } catch (RuntimeException e) {
                armed.set(false);
                throw e;
            }
        }
    }

    /** Requests waiting for a batch (not counting the batch being handled). */
    public int queued() {
        return queued.get();
    }

    /** Whether nothing is queued, planned or being handled. */
    public boolean isIdle() {
        return !armed.get() && queue.isEmpty();
    }

    /**
     * Handles what is queued without lingering, and what comes meanwhile, for up to {@code withinMs}
     * of the scheduler's time; returns whether everything was handled.
     */
    public boolean finish(long withinMs) {
        finishing = true;
        synchronized (planLock) {
            if (plannedRun != null) { // lingering, or waiting to retry: now instead
                plannedRun.cancel();
                plan(0);
            } else if (!queue.isEmpty() && armed.compareAndSet(false, true)) {
                plan(0);
            }
        }
        return scheduler.awaitUntil(this::isIdle, withinMs);
    }

    private void run() {
        synchronized (planLock) {
            plannedRun = null;
        }
        List<T> batch = retrying != null ? retrying : take();
        retrying = null;
        if (!batch.isEmpty()) {
            try {
                handler.handle(batch);
            } catch (RetryLater again) {
                retrying = batch;
                plan(again.delayMs);
                return; // still armed
            } catch (RuntimeException | Error e) { // the handler's own failures are its to handle: a defect
                // dropped, and the loop goes on: a loop left armed with no run would take requests
                // for ever and handle none
                LOG.error("{}: a batch of {} failed and is dropped", name, batch.size(), e);
            }
        }
        if (!queue.isEmpty()) { // more came while this batch was handled: a full one goes at once
            plan(finishing || queued.get() >= maxBatch ? 0 : lingerMs);
            return;
        }
        armed.set(false);
        // a request added after the look above but before the flag fell planned no run: plan it
        if (!queue.isEmpty() && armed.compareAndSet(false, true)) {
            plan(0);
        }
    }

    private List<T> take() {
        List<T> batch = new ArrayList<>(Math.min(maxBatch, Math.max(1, queued.get())));
        T next;
        while (batch.size() < maxBatch && (next = queue.poll()) != null) {
            batch.add(next);
            queued.decrementAndGet();
        }
        return batch;
    }
}
