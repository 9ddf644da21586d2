package dev.hourglass.node.background;

import java.util.function.BooleanSupplier;

/**
 * Where the engine's work runs and when: tasks at a time of the scheduler's clock, at once, or
 * after waiting for a condition. The node passes {@link ThreadedScheduler}s; unit tests pass one
 * manual scheduler whose clock moves only when the test says so, and which runs every task on the
 * test's thread in time order: the engine's behaviour is then tested on fake time without a
 * single real wait.
 *
 * <p>A task that throws is logged and the scheduler goes on (a plain scheduled executor would keep
 * the exception in a future nobody reads, and stop a repeated task for good).
 */
public interface TaskScheduler {

    /** The time this scheduler runs by, in epoch milliseconds. */
    long now();

    /**
     * A monotonic reading in nanoseconds, for deadlines and durations (a wall clock set back
     * would stretch a stop's grace): {@link System#nanoTime()} on threads, the clock on a manual one.
     */
    long nanoTime();

    /** Runs {@code task} at {@code atMs} of {@link #now()}'s clock, or at once when that has passed. */
    Scheduled at(long atMs, Runnable task);

    /** Runs {@code task} {@code delayMs} from now. */
    default Scheduled after(long delayMs, Runnable task) {
        return at(now() + Math.max(0, delayMs), task);
    }

    /** Runs {@code task} as soon as a thread of this scheduler is free. */
    default void execute(Runnable task) {
        at(Long.MIN_VALUE, task);
    }

    /**
     * Waits until {@code done} is true or {@code maxMs} have passed on this scheduler's time (a
     * threaded scheduler sleeps in short steps on a monotonic clock; a manual one moves its clock,
     * running what falls due meanwhile). Returns whether {@code done} became true.
     */
    boolean awaitUntil(BooleanSupplier done, long maxMs);

    /**
     * Takes no new task and waits up to {@code waitMs} for those already planned (tasks planned for
     * later still run at their time if that is within the wait); what is left then is dropped.
     */
    void close(long waitMs);

    /** A planned task; {@link #cancel()} keeps it from starting (one under way runs on). */
    interface Scheduled {
        void cancel();
    }
}
