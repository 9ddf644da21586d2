package dev.hourglass.node.shard;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * The shards this node owns now. A standalone node owns every shard; in a cluster the coordinator
 * replaces the set whenever the master publishes a new assignment. Listeners hear of every change.
 * Thread-safe.
 */
public final class ShardOwnership {
    private volatile List<Integer> owned;
    private final List<Consumer<List<Integer>>> listeners = new CopyOnWriteArrayList<>();

    public ShardOwnership(List<Integer> initial) {
        this.owned = List.copyOf(initial);
    }

    public static ShardOwnership all(int shardCount) {
        return new ShardOwnership(IntStream.range(0, shardCount).boxed().toList());
    }

    public List<Integer> current() {
        return owned;
    }

    public boolean owns(int shard) {
        return owned.contains(shard);
    }

    public void replace(List<Integer> shards) {
        owned = List.copyOf(shards);
        listeners.forEach(l -> l.accept(owned));
    }

    public void onChange(Consumer<List<Integer>> listener) {
        listeners.add(listener);
    }
}
