package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.core.shard.ShardOwnership;
import dev.hourglass.node.core.timeindex.IndexEntry;
import dev.hourglass.node.core.timeindex.SortedFireTimeIndex;
import dev.hourglass.node.testing.ManualClock;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WindowLoaderTest {
    static final long T0 = 1_000_000;
    ManualClock clock;
    InMemoryAttemptStore store;
    SortedFireTimeIndex index;
    ShardOwnership shards;

    private WindowLoader loader(int capacity) {
        index = new SortedFireTimeIndex(capacity);
        EngineSettings s = new EngineSettings(10_000, 1_000, 2_000, 1_000, capacity, 5, 1, 10, 0, 0);
        return new WindowLoader(store, index, shards, clock, s, () -> 0);
    }

    /** What firing does: due jobs leave memory and stop being DELAYED in the store. */
    private void fire(long now) {
        index.pollDue(now, 1_000).forEach(e -> store.delayed.remove(e.jobId()));
    }

    @BeforeEach
    void setUp() {
        clock = new ManualClock(T0);
        store = new InMemoryAttemptStore();
        shards = new ShardOwnership(List.of(0, 1));
    }

    @Test
    void extendLoadsOnlyTheWindowOfOwnedShardsAndEachJobOnce() {
        WindowLoader loader = loader(100);
        store.put(1, T0 - 50, 0); // overdue
        store.put(2, T0 + 5_000, 1);
        store.put(3, T0 + 15_000, 0); // beyond the window
        store.put(4, T0 + 100, 2); // a shard we do not own
        loader.extend();
        assertThat(index.contains(1)).isTrue();
        assertThat(index.contains(2)).isTrue();
        assertThat(index.contains(3)).isFalse();
        assertThat(index.contains(4)).isFalse();
        assertThat(loader.watermark()).isEqualTo(T0 + 10_000);

        index.pollDue(T0 + 6_000, 100); // fired
        clock.advance(6_000);
        loader.extend();
        assertThat(index.contains(2)).as("not read again: below the watermark").isFalse();
        assertThat(index.contains(3)).isTrue();
    }

    @Test
    void aFullIndexStopsTheWatermarkWhereRoomRanOut() {
        WindowLoader loader = loader(3);
        for (int i = 0; i < 6; i++) {
            store.put(i, T0 + 100 * i, 0);
        }
        loader.extend();
        assertThat(index.size()).isEqualTo(3);
        assertThat(loader.watermark()).isLessThanOrEqualTo(T0 + 300);
        fire(T0 + 300);
        clock.advance(300);
        loader.extend();
        assertThat(index.contains(3)).isTrue();
        assertThat(index.contains(5)).isTrue();
    }

    @Test
    void admitPutsNearJobsInMemoryAtOnceAndLeavesFarOnesToTheLoader() {
        WindowLoader loader = loader(100);
        loader.extend();
        loader.admit(new IndexEntry(10, T0 + 3_000, "app/svc", 1));
        loader.admit(new IndexEntry(11, T0 + 60_000, "app/svc", 1));
        loader.admit(new IndexEntry(12, T0 + 3_000, "app/svc", 7));
        assertThat(index.contains(10)).isTrue();
        assertThat(index.contains(11)).isFalse();
        assertThat(index.contains(12)).as("not our shard").isFalse();
    }

    @Test
    void admittingIntoAFullIndexLowersTheWatermarkSoTheDisplacedJobIsReadAgain() {
        WindowLoader loader = loader(2);
        store.put(1, T0 + 100, 0);
        store.put(2, T0 + 9_000, 0);
        loader.extend();
        assertThat(loader.watermark())
                .as("a full page: the loader cannot know there is no more")
                .isEqualTo(T0 + 9_000);
        store.put(3, T0 + 50, 0);
        loader.admit(new IndexEntry(3, T0 + 50, "app/svc", 0));
        assertThat(index.contains(2)).isFalse();
        assertThat(loader.watermark()).isEqualTo(T0 + 9_000);
        fire(T0 + 100);
        loader.extend();
        assertThat(index.contains(2)).isTrue();
    }

    @Test
    void catchUpFindsDueJobsThatMemoryMisses() {
        WindowLoader loader = loader(100);
        loader.extend();
        store.put(20, T0 + 500, 0); // written by someone else after the window was read
        store.put(21, T0 + 9_000, 0); // also missed, but not due soon: the catch-up leaves it
        assertThat(loader.catchUp()).isEqualTo(1);
        assertThat(index.contains(20)).isTrue();
        assertThat(index.contains(21)).isFalse();
        assertThat(loader.catchUp()).as("nothing twice").isZero();
        store.put(20, T0 + 100, 0); // moved earlier by someone else: memory follows
        loader.catchUp();
        assertThat(index.pollDue(T0 + 100, 10)).extracting(IndexEntry::jobId).containsExactly(20L);
    }

    @Test
    void aChangeOfShardsMakesTheLoaderReadAgain() {
        WindowLoader loader = loader(100);
        store.put(1, T0 + 100, 3);
        loader.extend();
        assertThat(index.contains(1)).isFalse();
        shards.replace(List.of(3));
        loader.shardsChanged(List.of(3));
        loader.extend();
        assertThat(index.contains(1)).isTrue();
    }
}
