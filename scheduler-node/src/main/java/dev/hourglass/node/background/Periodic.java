package dev.hourglass.node.background;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A task run on a daemon thread of its own every {@code periodMs} (the first run one period after
 * the start), until {@link #close()}. A run that throws an exception is logged and the next one
 * runs as planned ({@link Guarded}: a plain scheduled executor would silently stop rescheduling
 * it); an {@link Error} is logged and ends the task. For the engine's chores, which run on a
 * scheduler passed in, see {@link PeriodicTask}.
 */
public final class Periodic implements AutoCloseable {
    private final ScheduledExecutorService thread;

    private Periodic(String threadName, long periodMs, Runnable task) {
        this.thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(threadName));
        thread.scheduleWithFixedDelay(Guarded.of(threadName, task), periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    public static Periodic every(String threadName, long periodMs, Runnable task) {
        return new Periodic(threadName, periodMs, task);
    }

    /** Stops the thread: a run under way is interrupted; waits for it at most 5 s. */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
