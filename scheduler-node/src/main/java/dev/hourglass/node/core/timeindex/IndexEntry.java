package dev.hourglass.node.core.timeindex;

/**
 * A job due at {@code dueAt} (epoch ms), as the fire-time index holds it: only what firing needs to
 * pick and route the job; the job itself is read back from the store when it is claimed.
 */
public record IndexEntry(long jobId, long dueAt, String serviceKey, int shard) {}
