package dev.hourglass.node.cluster;

/**
 * Whether this node may still act on the shards it owns: only while it has heard from ZooKeeper
 * recently, under the session its shard assignment was read in.
 *
 * <p>ZooKeeper cannot expire a session before a session timeout has passed since the server last
 * heard from it, and the server heard from it no earlier than the moment a request that succeeded
 * was sent. So for two thirds of the session timeout after sending such a request the node is at
 * least a third of the timeout ahead of any other node taking its shards over. The times are
 * monotonic ({@link System#nanoTime()}), which keep counting while the process is frozen (a
 * SIGSTOP, a long GC pause, a suspended VM): every thread that wakes from such a freeze finds the
 * lease already lapsed, before any of them has had a chance to notice the session loss. Without
 * the lease the firing loop of a thawed node ran on its stale shards for the moment the
 * coordinator took to learn of the loss, and sent attempts another node had already retried.
 *
 * <p>After a session loss the lease is not held under the new session until the assignment has
 * been read again under it ({@link #ownershipReadIn}): the shards held before are not this node's.
 * Pure and thread-safe; the caller passes the time.
 */
final class ContactLease {
    private record Contact(long session, long validUntilNanos) {}

    private volatile Contact contact = new Contact(0, 0);
    private volatile long ownershipSession;

    /**
     * A request sent at {@code sentAtNanos} under {@code session} succeeded.
     *
     * @param sessionTimeoutMs the session timeout the server granted
     */
    void heard(long session, long sentAtNanos, long sessionTimeoutMs) {
        contact = new Contact(session, sentAtNanos + sessionTimeoutMs * 2 / 3 * 1_000_000L);
    }

    /** The shard assignment this node acts on was read in {@code session}. */
    void ownershipReadIn(long session) {
        ownershipSession = session;
    }

    boolean held(long nowNanos) {
        Contact c = contact;
        // session 0 is no session (ZooKeeper's own "not connected yet")
        return c.session() != 0 && c.session() == ownershipSession && nowNanos - c.validUntilNanos() < 0;
    }
}
