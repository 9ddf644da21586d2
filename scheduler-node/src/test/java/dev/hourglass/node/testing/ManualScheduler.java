package dev.hourglass.node.testing;

import dev.hourglass.node.background.TaskScheduler;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * A {@link TaskScheduler} on fake time: its {@link ManualClock} moves only in {@link #advance} (or
 * in a component's {@link #awaitUntil}, which moves it as a real wait would pass time), and every
 * task runs on the calling thread, in time order (ties in the order planned). A unit test drives
 * the firing engine with it and never waits in real time.
 *
 * <p>Not thread-safe by design: everything is expected to run on the test's thread (a task planned
 * from another thread is taken, under the lock, and run by the next {@link #runDue}).
 */
public final class ManualScheduler implements TaskScheduler {
    private final ManualClock clock;
    private final PriorityQueue<Planned> planned = new PriorityQueue<>();
    private long sequence;
    private final List<RuntimeException> failures = new CopyOnWriteArrayList<>();

    private final class Planned implements Comparable<Planned>, Scheduled {
        final long at;
        final long seq;
        final Runnable task;
        boolean canceled;

        Planned(long at, long seq, Runnable task) {
            this.at = at;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public int compareTo(Planned o) {
            return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
        }

        @Override
        public void cancel() {
            synchronized (ManualScheduler.this) {
                canceled = true;
                planned.remove(this);
            }
        }
    }

    public ManualScheduler(ManualClock clock) {
        this.clock = clock;
    }

    public ManualClock clock() {
        return clock;
    }

    @Override
    public long now() {
        return clock.millis();
    }

    @Override
    public long nanoTime() {
        return clock.millis() * 1_000_000;
    }

    @Override
    public synchronized Scheduled at(long atMs, Runnable task) {
        Planned p = new Planned(Math.max(atMs, clock.millis()), sequence++, task);
        planned.add(p);
        return p;
    }

    /** Runs every task due now, including those they plan for now; returns how many ran. */
    public int runDue() {
        int ran = 0;
        while (true) {
            Planned next;
            synchronized (this) {
                next = planned.peek();
                if (next == null || next.at > clock.millis()) {
                    return ran;
                }
                planned.poll();
            }
            runOne(next);
            ran++;
        }
    }

    /** Runs the first task due now, if any (not those it plans); whether one ran. */
    public boolean runNextDue() {
        Planned next;
        synchronized (this) {
            next = planned.peek();
            if (next == null || next.at > clock.millis()) {
                return false;
            }
            planned.poll();
        }
        runOne(next);
        return true;
    }

    /** Moves time forward by {@code ms}, running each task at its time on the way. */
    public void advance(long ms) {
        advanceTo(clock.millis() + ms);
    }

    /** Moves time to {@code to}, running each task at its time on the way. */
    public void advanceTo(long to) {
        while (true) {
            runDue();
            Planned next;
            synchronized (this) {
                next = planned.peek();
            }
            if (next == null || next.at > to) {
                break;
            }
            clock.set(next.at);
        }
        if (clock.millis() < to) {
            clock.set(to);
        }
        runDue();
    }

    /** The time of the next planned task, or null. */
    public synchronized Long nextAt() {
        Planned next = planned.peek();
        return next == null ? null : next.at;
    }

    @Override
    public boolean awaitUntil(BooleanSupplier done, long maxMs) {
        long until = clock.millis() + maxMs;
        runDue();
        while (!done.getAsBoolean()) {
            Long next = nextAt();
            if (next == null || next > until) {
                if (clock.millis() < until) {
                    clock.set(until);
                }
                runDue();
                return done.getAsBoolean();
            }
            clock.set(Math.max(next, clock.millis()));
            runDue();
        }
        return true;
    }

    /**
     * Runs what is due now and does not move the clock; it refuses no later task. One manual
     * scheduler usually stands for every role of the engine ({@code EngineSchedulers.allOn}), so it
     * cannot tell one role's planned tasks from another's: waiting for "its" tasks, a close would
     * wait for every role's, and one of them re-plans itself every second (the silent-send watch),
     * so each close of a stop would pass its whole wait — some 15 s of fake time in a stop, in which
     * the watch gives up on the sends under way, which a stop on threads never lets it do. The
     * waits of a stop that must pass time (the grace for deliveries under way, the fence's and the
     * result writer's finish) are {@link #awaitUntil} calls, which do; tasks planned for later run
     * when the test moves time on.
     */
    @Override
    public void close(long waitMs) {
        runDue();
    }

    /** What tasks threw (a threaded scheduler logs and goes on; a test looks here). */
    public List<RuntimeException> failures() {
        return failures;
    }

    private void runOne(Planned p) {
        if (p.canceled) {
            return;
        }
        try {
            p.task.run();
        } catch (RuntimeException e) { // as the threaded scheduler, it goes on; kept for the test
            failures.add(e);
        }
    }
}
