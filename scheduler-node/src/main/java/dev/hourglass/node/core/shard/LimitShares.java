package dev.hourglass.node.core.shard;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Splits a cluster-wide limit (a service's {@code maxInFlight}) over the nodes in proportion to the
 * shards each owns, by the largest-remainder method: every owner gets the floor of its exact share,
 * and the units left over go to the largest fractional parts (ties by node id), so the shares add
 * up to the limit exactly and every node computes the same split from the same assignment.
 *
 * <p>Worked example: limit 5, nodes a/b/c owning 21/21/22 of 64 shards: exact shares 1.64, 1.64,
 * 1.72; floors 1/1/1 leave 2 units, which go to c (.72) and then a (.64, before b by id): 2/1/2.
 *
 * <p>One exception keeps every job deliverable: a node that owns shards gets at least 1, so a limit
 * below the number of owners is exceeded (each owner may have one delivery at a time). Pure.
 */
public final class LimitShares {
    private LimitShares() {}

    /** This node's share of {@code limit}; 0 when it owns no shard. */
    public static int shareOf(int limit, Map<String, Integer> shardsByNode, String node) {
        int own = shardsByNode.getOrDefault(node, 0);
        if (own <= 0) {
            return 0;
        }
        long total = 0;
        for (int shards : shardsByNode.values()) {
            total += Math.max(0, shards);
        }
        record Quota(String node, long floor, long remainder) {}
        List<Quota> quotas = new ArrayList<>();
        long handedOut = 0;
        for (Map.Entry<String, Integer> e : shardsByNode.entrySet()) {
            long shards = Math.max(0, e.getValue());
            if (shards == 0) {
                continue;
            }
            long exact = (long) limit * shards; // the share is exact / total
            quotas.add(new Quota(e.getKey(), exact / total, exact % total));
            handedOut += exact / total;
        }
        quotas.sort(Comparator.comparingLong(Quota::remainder).reversed().thenComparing(Quota::node));
        long left = limit - handedOut;
        for (int i = 0; i < quotas.size(); i++) {
            Quota q = quotas.get(i);
            if (q.node().equals(node)) {
                long share = q.floor() + (i < left ? 1 : 0);
                return (int) Math.max(1, share);
            }
        }
        return 1; // unreachable: the node owns shards, so it has a quota
    }
}
