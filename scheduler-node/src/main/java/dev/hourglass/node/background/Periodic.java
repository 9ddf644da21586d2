package dev.hourglass.node.background;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task run on a daemon thread of its own every {@code periodMs} (the first run one period after
 * the start), until {@link #close()}. A run that throws is logged and the next one runs as planned
 * (a plain scheduled executor would silently stop rescheduling it).
 */
public final class Periodic implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Periodic.class);

    private final ScheduledExecutorService thread;

    private Periodic(String threadName, long periodMs, Runnable task) {
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(
                () -> {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        LOG.warn("{}: run failed, the next one goes on: {}", threadName, e.toString());
                    }
                },
                periodMs,
                periodMs,
                TimeUnit.MILLISECONDS);
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
