package dev.hourglass.node.cluster;

import java.util.List;

/** What the coordinator knows of the cluster now, for the operations API. */
public interface ClusterView {
    List<Member> members();

    Assignment assignment();

    /** The node id of the master, or null while none is elected. */
    String master();

    /** Whether this node's ZooKeeper session is connected (it claims nothing otherwise). */
    boolean isConnected();
}
