package dev.hourglass.node.background;

import java.time.Clock;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link TaskScheduler} on {@code threads} daemon threads named {@code name} (one thread: tasks
 * never overlap). Lifecycle: LATENT until {@link #start()}, which may be called once; tasks given
 * before it are refused. Times are milliseconds of {@code clock}, turned into delays when a task is
 * planned; the wait itself is the executor's, on the monotonic clock.
 */
public final class ThreadedScheduler implements TaskScheduler {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadedScheduler.class);
    /** How often {@link #awaitUntil} looks at its condition. */
    private static final long AWAIT_STEP_MS = 20;

    private final String name;
    private final int threads;
    private final Clock clock;
    private final Lifecycle lifecycle;
    private volatile ScheduledThreadPoolExecutor executor;

    public ThreadedScheduler(String name, int threads, Clock clock) {
        this.name = name;
        this.threads = threads;
        this.clock = clock;
        this.lifecycle = new Lifecycle(name);
    }

    public void start() {
        lifecycle.start();
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(threads, DaemonThreads.named(name));
        e.setRemoveOnCancelPolicy(true); // a re-armed round leaves no dead entry behind
        executor = e;
    }

    @Override
    public long now() {
        return clock.millis();
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Scheduled at(long atMs, Runnable task) {
        ScheduledThreadPoolExecutor e = executor;
        if (e == null) {
            throw new IllegalStateException(name + " is not started");
        }
        Runnable guarded = Guarded.of(name, task);
        try {
            if (atMs == Long.MIN_VALUE) {
                e.execute(guarded);
                return () -> {};
            }
            ScheduledFuture<?> f = e.schedule(guarded, Math.max(0, atMs - clock.millis()), TimeUnit.MILLISECONDS);
            return () -> f.cancel(false);
        } catch (RejectedExecutionException closed) {
            LOG.debug("{}: closed, a task is not run", name);
            return () -> {};
        }
    }

    @Override
    public boolean awaitUntil(BooleanSupplier done, long maxMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMs);
        while (!done.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                Thread.sleep(Math.min(AWAIT_STEP_MS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return done.getAsBoolean();
            }
        }
        return true;
    }

    @Override
    public void close(long waitMs) {
        if (!lifecycle.close()) {
            return;
        }
        ScheduledThreadPoolExecutor e = executor;
        if (e == null) {
            return;
        }
        e.shutdown(); // planned tasks still run at their time, new ones are refused
        try {
            if (!e.awaitTermination(waitMs, TimeUnit.MILLISECONDS)) {
                e.shutdownNow();
            }
        } catch (InterruptedException interrupted) {
            e.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** Stops at once, interrupting what runs and dropping what is planned: what a crash leaves (tests). */
    public void halt() {
        lifecycle.close();
        ScheduledThreadPoolExecutor e = executor;
        if (e != null) {
            e.shutdownNow();
        }
    }
}
