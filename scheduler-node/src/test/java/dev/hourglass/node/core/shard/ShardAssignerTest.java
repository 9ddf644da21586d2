package dev.hourglass.node.core.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardAssignerTest {
    @Test
    void theFirstAssignmentSplitsEvenly() {
        Map<String, List<Integer>> a = ShardAssigner.assign(64, List.of("c", "a", "b"), Map.of());
        assertBalancedAndComplete(64, a);
        assertThat(a.keySet()).containsExactly("a", "b", "c");
    }

    @Test
    void aJoinMovesOnlyWhatTheNewcomerNeeds() {
        Map<String, List<Integer>> before = Map.of("a", List.of(0, 1, 2), "b", List.of(3, 4, 5));
        Map<String, List<Integer>> after = ShardAssigner.assign(6, List.of("a", "b", "c"), before);
        assertThat(after.get("a")).containsExactly(0, 1);
        assertThat(after.get("b")).containsExactly(3, 4);
        assertThat(after.get("c")).containsExactly(2, 5);
    }

    @Test
    void moreNodesThanShardsLeavesSomeWithout() {
        Map<String, List<Integer>> a = ShardAssigner.assign(2, List.of("a", "b", "c"), Map.of());
        assertBalancedAndComplete(2, a);
        assertThat(a.values().stream().filter(List::isEmpty).count()).isEqualTo(1);
    }

    @Test
    void randomJoinsAndLeavesStayBalancedAndMoveTheMinimum() {
        Random random = new Random(2026);
        for (int shards : new int[] {1, 7, 64, 256}) {
            Map<String, List<Integer>> current = new HashMap<>();
            List<String> live = new ArrayList<>();
            int next = 0;
            for (int step = 0; step < 300; step++) {
                if (live.size() < 2 || (live.size() < 12 && random.nextBoolean())) {
                    live.add("node-" + next++);
                } else {
                    live.remove(random.nextInt(live.size()));
                }
                Map<String, List<Integer>> assigned = ShardAssigner.assign(shards, live, current);
                assertBalancedAndComplete(shards, assigned);
                assertThat(moves(current, assigned))
                        .as("moves at step " + step)
                        .isEqualTo(lowerBound(shards, current, live));
                assertThat(ShardAssigner.assign(shards, live, current))
                        .as("deterministic")
                        .isEqualTo(assigned);
                current = assigned;
            }
        }
    }

    private static void assertBalancedAndComplete(int shards, Map<String, List<Integer>> a) {
        Set<Integer> seen = new HashSet<>();
        a.values()
                .forEach(list -> list.forEach(
                        s -> assertThat(seen.add(s)).as("shard " + s + " once").isTrue()));
        assertThat(seen).hasSize(shards);
        int min = a.values().stream().mapToInt(List::size).min().orElse(0);
        int max = a.values().stream().mapToInt(List::size).max().orElse(0);
        assertThat(max - min).as("balance").isLessThanOrEqualTo(1);
    }

    /** Shards whose owner changed (from a live or departed node, or unowned before). */
    private static int moves(Map<String, List<Integer>> before, Map<String, List<Integer>> after) {
        Map<Integer, String> owner = new HashMap<>();
        before.forEach((n, list) -> list.forEach(s -> owner.put(s, n)));
        int moved = 0;
        for (var e : after.entrySet()) {
            for (int s : e.getValue()) {
                if (!e.getKey().equals(owner.get(s))) {
                    moved++;
                }
            }
        }
        return moved;
    }

    /**
     * The fewest moves a balanced assignment allows: every shard not held by a live node moves, and
     * each live node above the most it may keep gives up its surplus. The most a node may keep is
     * ceil(n/k) for the n%k largest holders and floor(n/k) for the others.
     */
    private static int lowerBound(int shards, Map<String, List<Integer>> before, List<String> live) {
        int k = live.size();
        List<Integer> holdings = new ArrayList<>();
        int heldByLive = 0;
        for (String n : live) {
            int h = before.getOrDefault(n, List.of()).size();
            holdings.add(h);
            heldByLive += h;
        }
        holdings.sort((x, y) -> y - x);
        int surplus = 0;
        for (int i = 0; i < k; i++) {
            int cap = shards / k + (i < shards % k ? 1 : 0);
            surplus += Math.max(0, holdings.get(i) - cap);
        }
        return shards - heldByLive + surplus;
    }
}
