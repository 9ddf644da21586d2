package dev.hourglass.sdk.pull;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The workers' free capacity, which bounds what the consumer reserves: a reserve asks for at most
 * as many jobs as there are free slots, each job holds its slot until its result is queued, so
 * every reservation finds a worker at once and none waits for one while its TTR runs. {@link
 * #close()} is the signal to reserve no more. Thread-safe.
 */
final class WorkSlots {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private int free;
    private boolean closed;

    WorkSlots(int slots) {
        this.free = slots;
    }

    /** Takes between 1 and {@code max} free slots, waiting for one; 0 once closed. */
    int take(int max) throws InterruptedException {
        lock.lock();
        try {
            while (free <= 0 && !closed) {
                changed.await();
            }
            if (closed) {
                return 0;
            }
            int taken = Math.min(free, max);
            free -= taken;
            return taken;
        } finally {
            lock.unlock();
        }
    }

    /** Gives slots back; a negative count takes more (a node that answered more than asked). */
    void give(int slots) {
        if (slots == 0) {
            return;
        }
        lock.lock();
        try {
            free += slots;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code nanos} or until closed; true when closed. */
    boolean awaitClosed(long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (!closed && left > 0) {
                left = changed.awaitNanos(left);
            }
            return closed;
        } finally {
            lock.unlock();
        }
    }

    boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }
}
