package dev.hourglass.node.core.job;

import java.time.Clock;

/**
 * Snowflake-style 63-bit ids: 41 bits of milliseconds since 2024-01-01, 10 bits of worker id, 12
 * bits of sequence. Ids rise with time, which keeps inserts at the right edge of the primary key.
 * Uniqueness across nodes rests on distinct worker ids, which the cluster leases to each live node
 * ({@link #useWorker}); the store's primary key is the last word (an insert that collides is
 * retried with fresh ids). Thread-safe.
 */
public final class JobIdGenerator {
    private static final long EPOCH = 1_704_067_200_000L;
    private static final int SEQUENCE_BITS = 12;
    private static final int WORKER_BITS = 10;

    private final Clock clock;
    private long worker;
    private long lastMillis = -1;
    private long sequence;

    public JobIdGenerator(Clock clock, int workerId) {
        this.clock = clock;
        useWorker(workerId);
    }

    /** From now on, ids carry this worker id (the one the cluster leased to this node). */
    public synchronized void useWorker(int workerId) {
        if (workerId < 0 || workerId >= (1 << WORKER_BITS)) {
            throw new IllegalArgumentException("workerId must be in [0, 1024)");
        }
        this.worker = workerId;
    }

    public synchronized long next() {
        long now = Math.max(clock.millis(), lastMillis); // never go back, even if the clock does
        if (now == lastMillis) {
            sequence = (sequence + 1) & ((1 << SEQUENCE_BITS) - 1);
            if (sequence == 0) {
                now = lastMillis + 1; // borrow the next millisecond rather than spin
            }
        } else {
            sequence = 0;
        }
        lastMillis = now;
        return ((now - EPOCH) << (SEQUENCE_BITS + WORKER_BITS)) | (worker << SEQUENCE_BITS) | sequence;
    }
}
