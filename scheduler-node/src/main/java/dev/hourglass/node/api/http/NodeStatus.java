package dev.hourglass.node.api.http;

import java.util.List;

/** What the operations endpoints show of this node; supplied by the composition root. */
public interface NodeStatus {
    String nodeId();

    String address();

    boolean isReady();

    List<Integer> ownedShards();

    int shardCount();

    int inMemory();

    int inFlight();

    /** Deliveries under way on this node per service key ({@code app/service}). */
    java.util.Map<String, Integer> inFlightByService();

    long watermark();

    /** Members, master and assignment as this node's coordinator sees them. */
    dev.hourglass.node.core.port.Coordination cluster();
}
