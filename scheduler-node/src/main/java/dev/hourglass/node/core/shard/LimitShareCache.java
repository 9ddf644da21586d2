package dev.hourglass.node.core.shard;

import dev.hourglass.node.core.cluster.Assignment;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's share of a cluster-wide limit ({@link LimitShares}), asked for every job the engine
 * admits and so remembered per assignment epoch, own shard count and limit. The node's own shard
 * count is its freshest view of itself and replaces what the assignment says of it. Thread-safe.
 */
public final class LimitShareCache {
    private final String nodeId;
    private final Map<Long, Integer> shares = new ConcurrentHashMap<>();
    private volatile long epoch = -1;

    public LimitShareCache(String nodeId) {
        this.nodeId = nodeId;
    }

    /** This node's share of {@code limit} under {@code assignment}, owning {@code ownShards} shards. */
    public int shareOf(int limit, Assignment assignment, int ownShards) {
        if (assignment.epoch() != epoch) {
            shares.clear();
            epoch = assignment.epoch();
        }
        return shares.computeIfAbsent(((long) ownShards << 32) | limit, key -> {
            Map<String, Integer> owned = new HashMap<>();
            assignment.shardsByNode().forEach((node, list) -> owned.put(node, list.size()));
            owned.put(nodeId, ownShards);
            return LimitShares.shareOf(limit, owned, nodeId);
        });
    }
}
