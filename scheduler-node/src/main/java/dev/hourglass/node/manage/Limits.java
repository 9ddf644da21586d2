package dev.hourglass.node.manage;

/**
 * Input limits of the API (docs/api.md), mapped from {@code limits.*} of the node configuration
 * (which holds the defaults and validates them).
 *
 * @param maxPayloadBytes serialized payload, in bytes (413 beyond)
 * @param maxFireAheadMs how far ahead a fire time may be
 * @param maxBatch jobs per batch submit
 * @param maxAttributes attribute pairs per job
 */
public record Limits(int maxPayloadBytes, long maxFireAheadMs, int maxBatch, int maxAttributes) {}
