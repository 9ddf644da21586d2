package dev.hourglass.node.core.cluster;

/**
 * A live node as it announces itself in ZooKeeper. The load figures are refreshed every few
 * seconds, for {@code GET /api/v1/cluster}.
 */
public record Member(
        String id, String address, String version, long startedAt, int inMemory, int inFlight, Long loadedUntil) {}
