package dev.hourglass.bench;

import dev.hourglass.node.core.timeindex.IndexEntry;
import dev.hourglass.node.core.timeindex.SortedFireTimeIndex;
import java.util.SplittableRandom;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The fire-time index against the seed design's {@link DelayQueue}, at the sizes a node holds
 * (jobs due within the load window). Two operations: a steady "offer one, fire one", and
 * "cancel or reschedule an arbitrary job" (remove + re-add), which is where a heap pays O(n).
 *
 * <p>Run: {@code java -cp "$(cat benchmark/target/classpath.txt):benchmark/target/classes"
 * org.openjdk.jmh.Main FireTimeIndexBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class FireTimeIndexBenchmark {
    @Param({"10000", "100000"})
    int size;

    private SortedFireTimeIndex tree;
    private DelayQueue<Job> heap;
    private Job[] heapJobs;
    private final SplittableRandom random = new SplittableRandom(7);
    private long now;
    private long nextId;

    /** DelayQueue needs Delayed elements; its clock is the benchmark's {@code now}, like ours. */
    private final class Job implements Delayed {
        final long id;
        final long due;

        Job(long id, long due) {
            this.id = id;
            this.due = due;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(due - now, TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(due, ((Job) o).due);
        }
    }

    @Setup
    public void fill() {
        tree = new SortedFireTimeIndex(size * 2);
        heap = new DelayQueue<>();
        heapJobs = new Job[size];
        for (int i = 0; i < size; i++) {
            long due = random.nextLong(60_000);
            tree.offer(new IndexEntry(i, due, "app/svc", i % 64));
            heapJobs[i] = new Job(i, due);
            heap.add(heapJobs[i]);
        }
        nextId = size;
    }

    @Benchmark
    public Object treeOfferThenFire() {
        now++;
        tree.offer(new IndexEntry(nextId++, now + random.nextLong(60_000), "app/svc", 1));
        return tree.pollDue(now, 1);
    }

    @Benchmark
    public Object heapOfferThenFire() {
        now++;
        heap.add(new Job(nextId++, now + random.nextLong(60_000)));
        return heap.poll();
    }

    @Benchmark
    public Object treeRescheduleArbitrary() {
        int i = random.nextInt(size);
        tree.remove(i);
        return tree.offer(new IndexEntry(i, random.nextLong(60_000), "app/svc", 1));
    }

    @Benchmark
    public Object heapRescheduleArbitrary() {
        int i = random.nextInt(size);
        heap.remove(heapJobs[i]);
        heapJobs[i] = new Job(i, random.nextLong(60_000));
        return heap.add(heapJobs[i]);
    }
}
