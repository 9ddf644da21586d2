package dev.hourglass.node.core.shard;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * The shards this node owns now. A standalone node owns every shard; in a cluster the coordinator
 * replaces the set whenever the master publishes a new assignment. Listeners hear of every change.
 *
 * <p>Owning a shard is not enough to fire its jobs: in a cluster the node must also hold its lease
 * on the assignment (recent contact with ZooKeeper, see the coordinator), which a node that was
 * frozen past its session has lost before it can learn that its shards moved. Thread-safe.
 */
public final class ShardOwnership {
    private volatile List<Integer> owned;
    private final List<Consumer<List<Integer>>> listeners = new CopyOnWriteArrayList<>();
    private volatile BooleanSupplier lease = () -> true; // standalone: nobody else can take a shard

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

    /** Whether this node may claim and send the jobs of the shards it owns now. */
    public boolean leaseHeld() {
        return lease.getAsBoolean();
    }

    /** {@link #owns} and {@link #leaseHeld}: a job of this shard may be claimed or sent now. */
    public boolean mayFire(int shard) {
        return leaseHeld() && owns(shard);
    }

    /** The cluster's condition for acting on owned shards (the coordinator sets it). */
    public void leaseFrom(BooleanSupplier lease) {
        this.lease = lease;
    }

    public void replace(List<Integer> shards) {
        owned = List.copyOf(shards);
        listeners.forEach(l -> l.accept(owned));
    }

    public void onChange(Consumer<List<Integer>> listener) {
        listeners.add(listener);
    }
}
