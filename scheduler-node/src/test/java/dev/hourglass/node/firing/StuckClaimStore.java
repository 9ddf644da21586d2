package dev.hourglass.node.firing;

import java.util.Collection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A job store whose claim of one job blocks, as on a row another transaction holds locked, until
 * {@link #release} (30 s at most), and counts those claims: a second one means the job was claimed
 * again while the first waited.
 */
class StuckClaimStore extends FakeJobStore {
    private final long stuckJob;
    private final CountDownLatch lockReleased = new CountDownLatch(1);
    final AtomicInteger claimsOfTheStuckJob = new AtomicInteger();

    StuckClaimStore(long stuckJob) {
        this.stuckJob = stuckJob;
    }

    void release() {
        lockReleased.countDown();
    }

    @Override
    public Claim claim(Collection<Long> ids, String node, long now, long horizon) {
        if (ids.contains(stuckJob)) {
            claimsOfTheStuckJob.incrementAndGet();
            try {
                lockReleased.await(30, TimeUnit.SECONDS); // the row lock of another transaction
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return super.claim(ids, node, now, horizon);
    }
}
