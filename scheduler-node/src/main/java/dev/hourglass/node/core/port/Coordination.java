package dev.hourglass.node.core.port;

import dev.hourglass.node.core.cluster.Assignment;
import dev.hourglass.node.core.cluster.Member;
import java.util.List;

/**
 * What this node knows of the cluster now: its members, who owns which shard, and who is master.
 * Every answer but {@link #master()} (which may ask the coordination service) comes from memory and
 * never waits; while the node is out of touch, {@link #isConnected()} is false and so is
 * {@link #isMaster()}.
 */
public interface Coordination {
    List<Member> members();

    Assignment assignment();

    /** The node id of the master, or null while none is elected. */
    String master();

    /** Whether this node's session with the coordination service is connected (it claims nothing otherwise). */
    boolean isConnected();

    /**
     * Whether this node is the master and in touch: the cluster-wide chores (alerts, retention)
     * run only where this is true. Two nodes may both see true for the moments a session expiry
     * takes to reach the old master, so those chores are idempotent.
     */
    boolean isMaster();
}
