package dev.hourglass.node.core.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LimitSharesTest {

    @Test
    void theWorkedExampleOfTheClassComment() {
        Map<String, Integer> owned = Map.of("a", 21, "b", 21, "c", 22);
        assertThat(LimitShares.shareOf(5, owned, "a")).isEqualTo(2);
        assertThat(LimitShares.shareOf(5, owned, "b")).isEqualTo(1);
        assertThat(LimitShares.shareOf(5, owned, "c")).isEqualTo(2);
    }

    @Test
    void aNodeWithoutShardsGetsNothingAndTheOwnersShareTheWholeLimit() {
        Map<String, Integer> owned = Map.of("a", 1, "b", 1, "idle", 0);
        assertThat(LimitShares.shareOf(5, owned, "idle")).isZero();
        assertThat(LimitShares.shareOf(5, owned, "a") + LimitShares.shareOf(5, owned, "b"))
                .isEqualTo(5);
        assertThat(LimitShares.shareOf(5, owned, "unknown")).isZero();
    }

    @Test
    void aLoneNodeGetsTheWholeLimit() {
        assertThat(LimitShares.shareOf(7, Map.of("solo", 64), "solo")).isEqualTo(7);
    }

    /**
     * Over random assignments: shares add up to the limit whenever each owner's exact share is at
     * least one; below that, the one-per-owner floor may add at most one per owner.
     */
    @Test
    void sharesAddUpToTheLimitAndEveryOwnerCanDeliver() {
        Random random = new Random(42);
        for (int round = 0; round < 2_000; round++) {
            int nodes = 1 + random.nextInt(12);
            Map<String, Integer> owned = new HashMap<>();
            for (int n = 0; n < nodes; n++) {
                owned.put("n" + n, random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(30));
            }
            long owners = owned.values().stream().filter(s -> s > 0).count();
            if (owners == 0) {
                continue;
            }
            int limit = 1 + random.nextInt(random.nextBoolean() ? 10 : 5_000);
            int sum = 0;
            for (String node : owned.keySet()) {
                int share = LimitShares.shareOf(limit, owned, node);
                if (owned.get(node) > 0) {
                    assertThat(share).as("an owner can always deliver").isPositive();
                } else {
                    assertThat(share).isZero();
                }
                sum += share;
            }
            int total = owned.values().stream().mapToInt(Integer::intValue).sum();
            int fewest = owned.values().stream()
                    .filter(x -> x > 0)
                    .mapToInt(Integer::intValue)
                    .min()
                    .orElseThrow();
            if ((long) limit * fewest >= total) {
                assertThat(sum)
                        .as("round " + round + ": " + owned + " limit " + limit)
                        .isEqualTo(limit);
            } else {
                assertThat(sum)
                        .as("round " + round + ": " + owned + " limit " + limit)
                        .isBetween(limit, limit + (int) owners);
            }
        }
    }
}
