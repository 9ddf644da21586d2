package dev.hourglass.node.core.cluster;

import java.util.List;
import java.util.Map;

/** The master's shard assignment; {@code epoch} rises with every change. */
public record Assignment(long epoch, String master, Map<String, List<Integer>> shardsByNode) {
    public static final Assignment NONE = new Assignment(0, null, Map.of());

    public List<Integer> shardsOf(String nodeId) {
        return shardsByNode.getOrDefault(nodeId, List.of());
    }
}
