package dev.hourglass.node.manage;

/**
 * Input limits of the API (SPEC §3), configurable.
 *
 * @param maxPayloadBytes serialized payload, in bytes (413 beyond)
 * @param maxFireAheadMs how far ahead a fire time may be
 * @param maxBatch jobs per batch submit
 * @param maxAttributes attribute pairs per job
 */
public record Limits(int maxPayloadBytes, long maxFireAheadMs, int maxBatch, int maxAttributes) {
    public static Limits defaults() {
        return new Limits(64 * 1024, 10L * 366 * 24 * 3600 * 1000, 1_000, 16);
    }
}
