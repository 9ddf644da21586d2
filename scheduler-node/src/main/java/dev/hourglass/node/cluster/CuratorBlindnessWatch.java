package dev.hourglass.node.cluster;

import java.time.Duration;

/**
 * Notices Curator calling a ZooKeeper session disconnected while that very session answers our
 * requests, for longer than a reconnection's own bookkeeping can take.
 *
 * <p>Curator 3 to 5 can post a session expiry's events out of order: the expired handle's event
 * thread opens the new session and only then marks Curator disconnected and posts LOST. When the
 * new session connects in between, its RECONNECTED comes before that LOST, and Curator stays LOST on
 * a healthy session for good: its background operations wait for a connection it believes gone,
 * and the recipes built on them (the leader latch, the membership node, the cache) never rebuild —
 * the node stays out of the cluster until restarted (CURATOR-367: fixed in Curator 2.12, a fix the
 * 3.x line never received, nor 4.x or 5.x; seen in our CI). Nothing in Curator repairs that state,
 * so the coordinator opens a new session when this watch says so.
 *
 * <p>Only a request that succeeded counts, so a real outage (no request succeeds) never trips it.
 * Each time it trips without Curator having been connected since, its patience doubles (up to 8
 * times the first): should something else keep Curator's flag down, a new session every few
 * seconds would churn the membership. Pure; the caller passes the time. Not thread-safe: one thread
 * (the lease renewal) feeds it.
 */
final class CuratorBlindnessWatch {
    private final long firstPatienceNanos;
    private long patienceNanos;
    private boolean watching;
    private long session;
    private long sinceNanos;

    /** @param patience how long Curator may lag behind a session that answers */
    CuratorBlindnessWatch(Duration patience) {
        this.firstPatienceNanos = patience.toNanos();
        this.patienceNanos = firstPatienceNanos;
    }

    /**
     * A request under {@code session} succeeded at {@code nowNanos} while Curator reported the
     * client {@code curatorConnected}. Returns true once Curator has called this session
     * disconnected for the whole patience; then it watches afresh, so it says so again only after
     * another, twice as long, patience.
     */
    boolean answered(long session, boolean curatorConnected, long nowNanos) {
        if (curatorConnected) {
            watching = false;
            patienceNanos = firstPatienceNanos;
            return false;
        }
        if (!watching || this.session != session) {
            watching = true;
            this.session = session;
            sinceNanos = nowNanos;
            return false;
        }
        if (nowNanos - sinceNanos < patienceNanos) {
            return false;
        }
        watching = false;
        patienceNanos = Math.min(patienceNanos * 2, firstPatienceNanos * 8);
        return true;
    }

    /** A request failed: the connection is really down or moving, which Curator follows by itself. */
    void failed() {
        watching = false;
    }
}
