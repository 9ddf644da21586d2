package dev.hourglass.node.core.shard;

import java.util.List;

/**
 * Chooses a new job's shard (the seed design's rule). A job due within the receiving node's loaded
 * window goes to one of that node's own shards, so it goes straight into that node's memory and
 * never waits for another node's scan; any other job gets a shard by a uniform rule on its id.
 */
public final class ShardPlacement {
    private final int shardCount;

    public ShardPlacement(int shardCount) {
        if (shardCount < 1) {
            throw new IllegalArgumentException("shardCount must be positive");
        }
        this.shardCount = shardCount;
    }

    public int shardCount() {
        return shardCount;
    }

    /**
     * @param ownedShards the receiving node's shards now (may be empty while it owns none)
     * @param withinLoadedWindow whether the job is due before the receiving node's load watermark
     */
    public int place(long jobId, boolean withinLoadedWindow, List<Integer> ownedShards) {
        long mixed = mix(jobId);
        if (withinLoadedWindow && !ownedShards.isEmpty()) {
            return ownedShards.get((int) Math.floorMod(mixed, (long) ownedShards.size()));
        }
        return (int) Math.floorMod(mixed, (long) shardCount);
    }

    /** The shard of something named by {@code key} rather than an id (a schedule: {@code app/name}). */
    public int shardOfKey(String key) {
        return (int) Math.floorMod(mix(key.hashCode()), (long) shardCount);
    }

    /** SplitMix64 finalizer: ids are time-ordered, so their low bits alone would not spread well. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
