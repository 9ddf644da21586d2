package dev.hourglass.node.boot;

import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Runs the steps of a node's stop in order, each with a bound, so that the whole stop ends by a
 * deadline whatever ZooKeeper, the database or a broker are doing: a step that overruns (blocked
 * in a client's retry loop against a server that is gone) is abandoned with a warning, on a daemon
 * thread that dies with the JVM, and the next step runs.
 *
 * <p>A step gets its own bound or what is left until the deadline, whichever is less, but never
 * less than {@link #FLOOR_MS}: a late step still gets a moment (a quick close is worth trying even
 * past the deadline), so the stop can end past its deadline by at most that per remaining step.
 * A step that throws is logged and the next runs. Not thread-safe: one thread runs the steps.
 */
final class StopSequence {
    /** The least time a step gets, even past the deadline. */
    static final long FLOOR_MS = 200;

    private final Logger log;
    private final long deadlineNanos;

    StopSequence(Logger log, long budgetMs) {
        this.log = log;
        this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(budgetMs);
    }

    /**
     * Runs {@code action} for at most {@code maxMs} (and the deadline).
     *
     * @return true when it ended in time (normally or with an exception), false when abandoned
     */
    boolean step(String name, long maxMs, Runnable action) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        long bound = Math.max(FLOOR_MS, Math.min(maxMs, left));
        Thread worker = new Thread(
                () -> {
                    try {
                        action.run();
                    } catch (RuntimeException e) {
                        log.warn("stopping: {} failed: {}", name, e.toString());
                    }
                },
                "hourglass-stop-" + name.replace(' ', '-'));
        worker.setDaemon(true);
        worker.start();
        try {
            worker.join(bound);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (worker.isAlive()) {
            log.warn("stopping: {} did not end within {} ms; abandoned, the stop goes on", name, bound);
            return false;
        }
        return true;
    }
}
