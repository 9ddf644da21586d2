package dev.hourglass.node.core.shard;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The master's assignment of a fixed number of shards to the live nodes: balanced (every node
 * within one shard of the mean) and sticky (a join or leave moves as few shards as possible).
 *
 * <p>Algorithm: each node's target is {@code n / k}, and the {@code n % k} nodes that hold the most
 * shards now get one more (so no shard moves just to pick who gets the remainder). Every live node
 * keeps up to its target of the shards it has; the shards of departed nodes, the surplus of nodes
 * above target and never-assigned shards form a pool, handed, lowest first, to the nodes below
 * target. A shard moves only if its node left or held more than its target, which is the fewest
 * moves any balanced assignment can make.
 *
 * <p>Example: shards 0..5 on {a:[0,1,2], b:[3,4,5]}; c joins. Targets 2/2/2; a keeps [0,1], b keeps
 * [3,4]; pool [2,5] goes to c: two moves, the minimum.
 *
 * <p>Pure and deterministic: the same inputs give the same assignment on every node.
 */
public final class ShardAssigner {
    private ShardAssigner() {}

    /**
     * @param previous the last assignment (nodes that left may appear; unknown shards are ignored)
     * @return node -> its shards, ascending, for every live node (an empty list when there are more
     *     nodes than shards)
     */
    public static Map<String, List<Integer>> assign(
            int shardCount, Collection<String> liveNodes, Map<String, List<Integer>> previous) {
        if (shardCount < 1) {
            throw new IllegalArgumentException("shardCount must be positive");
        }
        List<String> nodes = new ArrayList<>(new TreeSet<>(liveNodes));
        Map<String, List<Integer>> result = new LinkedHashMap<>();
        if (nodes.isEmpty()) {
            return result;
        }
        Map<String, TreeSet<Integer>> held = new LinkedHashMap<>();
        boolean[] taken = new boolean[shardCount];
        for (String node : nodes) {
            TreeSet<Integer> mine = new TreeSet<>();
            for (int shard : previous.getOrDefault(node, List.of())) {
                if (shard >= 0 && shard < shardCount && !taken[shard]) {
                    taken[shard] = true;
                    mine.add(shard);
                }
            }
            held.put(node, mine);
        }
        int base = shardCount / nodes.size();
        int extra = shardCount % nodes.size();
        List<String> byHolding = new ArrayList<>(nodes);
        byHolding.sort(Comparator.comparingInt((String n) -> held.get(n).size())
                .reversed()
                .thenComparing(Comparator.naturalOrder()));
        Map<String, Integer> target = new LinkedHashMap<>();
        for (int i = 0; i < byHolding.size(); i++) {
            target.put(byHolding.get(i), base + (i < extra ? 1 : 0));
        }
        TreeSet<Integer> pool = new TreeSet<>();
        for (int shard = 0; shard < shardCount; shard++) {
            if (!taken[shard]) {
                pool.add(shard);
            }
        }
        for (String node : nodes) {
            TreeSet<Integer> mine = held.get(node);
            while (mine.size() > target.get(node)) {
                pool.add(mine.pollLast());
            }
        }
        Deque<Integer> handOut = new ArrayDeque<>(pool);
        for (String node : nodes) {
            TreeSet<Integer> mine = held.get(node);
            while (mine.size() < target.get(node)) {
                mine.add(handOut.poll());
            }
            result.put(node, List.copyOf(mine));
        }
        return result;
    }
}
