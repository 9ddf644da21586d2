package dev.hourglass.node.firing;

/**
 * Tuning of the firing engine, mapped from {@code engine.*} of the node configuration (which holds
 * the defaults and validates them).
 *
 * @param loadWindowMs jobs due within this much of now are held in memory
 * @param loadIntervalMs how often the loader extends the window
 * @param catchUpIntervalMs how often the catch-up sweep re-reads jobs due now or soon
 * @param timeoutSweepIntervalMs how often RUNNING jobs past their deadline are looked for
 * @param indexCapacity at most this many jobs in memory
 * @param claimBatch at most this many jobs per claim transaction
 * @param claimThreads claims in parallel
 * @param resultBatch at most this many results per write
 * @param claimLeadMs jobs are claimed up to this long before their fire time and sent at it, so
 *     the claim's database round trip is not part of their lateness; 0 claims at the fire time. A
 *     claim round starts when the earliest job is half this away and takes every job due within
 *     the whole lead, so a steady stream is claimed in groups, not one transaction per job
 * @param resultLingerMs the result writer waits this long after the first result of a batch for
 *     more, so a steady stream of results is written in groups; 0 writes each at once
 */
public record EngineSettings(
        long loadWindowMs,
        long loadIntervalMs,
        long catchUpIntervalMs,
        long timeoutSweepIntervalMs,
        int indexCapacity,
        int claimBatch,
        int claimThreads,
        int resultBatch,
        long claimLeadMs,
        long resultLingerMs) {}
