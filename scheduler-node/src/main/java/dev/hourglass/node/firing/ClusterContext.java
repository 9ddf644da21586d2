package dev.hourglass.node.firing;

import java.util.Set;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;

/**
 * What the engine needs to know of the cluster beyond its own shards.
 *
 * @param nodeId this node, as it owns attempts in the database
 * @param liveNodes the nodes in the cluster now
 * @param limitShare this node's share of a cluster-wide limit ({@code maxInFlight}), by the shards
 *     it owns (see {@code shard.LimitShares})
 */
public record ClusterContext(String nodeId, Supplier<Set<String>> liveNodes, IntUnaryOperator limitShare) {

    /** A node on its own: every limit is its own. */
    public static ClusterContext alone(String nodeId) {
        return new ClusterContext(nodeId, () -> Set.of(nodeId), limit -> limit);
    }
}
