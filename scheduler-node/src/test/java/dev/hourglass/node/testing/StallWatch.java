package dev.hourglass.node.testing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures how long this JVM could not run a thread that asked to: a thread sleeps {@value
 * #TICK_MS} ms at a time and records by how much each wake-up came late. A garbage-collection or
 * safepoint pause, a frozen process or two cores taken by something else all show up as a late
 * wake-up; a healthy machine wakes it within a few milliseconds.
 *
 * <p>Why: a test that bounds delivery lateness checks the scheduler's promise "on time with the
 * cluster healthy and not overloaded". What the machine stole from every thread of the JVM, the
 * scheduler's included, is not the scheduler's lateness; this tells the two apart, and says so in
 * the failure message.
 */
public final class StallWatch implements AutoCloseable {
    static final long TICK_MS = 5;

    private final AtomicLong longestMs = new AtomicLong();
    private final AtomicLong totalMs = new AtomicLong();
    private final Thread watcher;
    private volatile boolean running = true;

    public StallWatch() {
        watcher = new Thread(this::watch, "stall-watch");
        watcher.setDaemon(true);
        watcher.setPriority(Thread.MAX_PRIORITY);
        watcher.start();
    }

    private void watch() {
        while (running) {
            long before = System.nanoTime();
            try {
                Thread.sleep(TICK_MS);
            } catch (InterruptedException e) {
                return;
            }
            long late = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before) - TICK_MS;
            if (late > 0) {
                longestMs.accumulateAndGet(late, Math::max);
                totalMs.addAndGet(late);
            }
        }
    }

    /** The longest time the watching thread could not run when it should have. */
    public long longestStallMs() {
        return longestMs.get();
    }

    @Override
    public String toString() {
        return "the JVM's longest stall " + longestMs.get() + " ms (" + totalMs.get() + " ms late wake-ups in all)";
    }

    @Override
    public void close() {
        running = false;
        watcher.interrupt();
        try {
            watcher.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
