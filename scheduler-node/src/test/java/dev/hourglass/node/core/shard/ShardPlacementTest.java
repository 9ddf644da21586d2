package dev.hourglass.node.core.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ShardPlacementTest {
    @Test
    void aNearJobGoesToOneOfTheReceiversOwnShards() {
        ShardPlacement placement = new ShardPlacement(64);
        List<Integer> own = List.of(5, 9, 33);
        for (long id = 1; id < 1_000; id++) {
            assertThat(own).contains(placement.place(id, true, own));
        }
    }

    @Test
    void aFarJobIsSpreadUniformlyOverAllShards() {
        ShardPlacement placement = new ShardPlacement(16);
        int[] counts = new int[16];
        long base = 382_705_139_839_250_432L; // time-ordered ids: consecutive values
        for (long i = 0; i < 160_000; i++) {
            counts[placement.place(base + (i << 12), false, List.of(1))]++;
        }
        for (int c : counts) {
            assertThat(c).isBetween(9_000, 11_000);
        }
    }

    @Test
    void withNoOwnShardsANearJobFallsBackToTheUniformRule() {
        ShardPlacement placement = new ShardPlacement(8);
        assertThat(placement.place(77, true, List.of())).isBetween(0, 7);
    }
}
