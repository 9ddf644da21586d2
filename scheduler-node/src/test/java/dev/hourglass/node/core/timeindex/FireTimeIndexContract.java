package dev.hourglass.node.core.timeindex;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link FireTimeIndex} must show; run against each implementation. */
abstract class FireTimeIndexContract {
    protected abstract FireTimeIndex create(int capacity, Runnable onEarlierHead);

    private static IndexEntry e(long id, long due) {
        return new IndexEntry(id, due, "app/svc", (int) (id % 4));
    }

    @Test
    void pollsOnlyWhatIsDueEarliestFirstAndNeverEarly() {
        FireTimeIndex index = create(100, () -> {});
        index.offer(e(3, 300));
        index.offer(e(1, 100));
        index.offer(e(2, 200));
        assertThat(index.nextDueAt()).isEqualTo(100);
        assertThat(index.pollDue(99, 10)).isEmpty();
        assertThat(index.pollDue(200, 10)).extracting(IndexEntry::jobId).containsExactly(1L, 2L);
        assertThat(index.pollDue(10_000, 10)).extracting(IndexEntry::jobId).containsExactly(3L);
        assertThat(index.nextDueAt()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void pollRespectsItsMaximum() {
        FireTimeIndex index = create(100, () -> {});
        for (int i = 0; i < 10; i++) {
            index.offer(e(i, 50));
        }
        assertThat(index.pollDue(50, 4)).hasSize(4);
        assertThat(index.size()).isEqualTo(6);
    }

    @Test
    void aJobIsHeldOnceAndAReofferMovesIt() {
        FireTimeIndex index = create(100, () -> {});
        index.offer(e(1, 500));
        index.offer(e(1, 100));
        assertThat(index.size()).isEqualTo(1);
        assertThat(index.pollDue(100, 10)).extracting(IndexEntry::dueAt).containsExactly(100L);
        index.offer(e(2, 100));
        index.offer(e(2, 900));
        assertThat(index.pollDue(800, 10)).isEmpty();
    }

    @Test
    void removeTakesAnyJobOut() {
        FireTimeIndex index = create(100, () -> {});
        index.offer(e(1, 100));
        index.offer(e(2, 200));
        assertThat(index.remove(1)).isTrue();
        assertThat(index.remove(1)).isFalse();
        assertThat(index.contains(2)).isTrue();
        assertThat(index.pollDue(1_000, 10)).extracting(IndexEntry::jobId).containsExactly(2L);
    }

    @Test
    void atCapacityTheLatestEntryGivesWayToAnEarlierOne() {
        FireTimeIndex index = create(2, () -> {});
        assertThat(index.offer(e(1, 100))).isNull();
        assertThat(index.offer(e(2, 300))).isNull();
        IndexEntry displaced = index.offer(e(3, 200));
        assertThat(displaced.jobId()).isEqualTo(2);
        IndexEntry refused = index.offer(e(4, 400));
        assertThat(refused.jobId()).as("a later entry is refused").isEqualTo(4);
        assertThat(index.size()).isEqualTo(2);
        assertThat(index.pollDue(1_000, 10)).extracting(IndexEntry::jobId).containsExactly(1L, 3L);
    }

    @Test
    void theListenerHearsOfEveryEarlierHead() {
        AtomicInteger heads = new AtomicInteger();
        FireTimeIndex index = create(10, heads::incrementAndGet);
        index.offer(e(1, 500));
        index.offer(e(2, 600));
        index.offer(e(3, 400));
        assertThat(heads.get()).isEqualTo(2);
    }

    @Test
    void removeShardsDropsTheirEntries() {
        FireTimeIndex index = create(100, () -> {});
        for (int i = 0; i < 8; i++) {
            index.offer(e(i, 100 + i));
        }
        assertThat(index.removeShards(s -> s == 1 || s == 2)).isEqualTo(4);
        assertThat(index.pollDue(1_000, 100)).allMatch(x -> x.shard() == 0 || x.shard() == 3);
    }

    @Test
    void randomOperationsMatchASortedModel() {
        FireTimeIndex index = create(1_000_000, () -> {});
        java.util.TreeMap<Long, Long> model = new java.util.TreeMap<>(); // id -> due
        Random random = new Random(42);
        long now = 0;
        for (int step = 0; step < 20_000; step++) {
            int op = random.nextInt(10);
            long id = random.nextInt(2_000);
            if (op < 6) {
                long due = now + random.nextInt(1_000);
                index.offer(e(id, due));
                model.put(id, due);
            } else if (op < 8) {
                assertThat(index.remove(id)).isEqualTo(model.remove(id) != null);
            } else {
                now += random.nextInt(50);
                long at = now;
                List<IndexEntry> polled = index.pollDue(at, 1_000_000);
                List<Long> expected = new ArrayList<>();
                model.entrySet().stream()
                        .filter(x -> x.getValue() <= at)
                        .sorted(java.util.Map.Entry.<Long, Long>comparingByValue()
                                .thenComparing(java.util.Map.Entry.comparingByKey()))
                        .forEach(x -> expected.add(x.getKey()));
                assertThat(polled).extracting(IndexEntry::jobId).containsExactlyElementsOf(expected);
                expected.forEach(model::remove);
            }
            assertThat(index.size()).isEqualTo(model.size());
        }
    }
}
