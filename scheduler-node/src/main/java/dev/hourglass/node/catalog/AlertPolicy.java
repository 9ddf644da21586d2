package dev.hourglass.node.catalog;

/** Alert when a service's failures within a window reach a threshold (SPEC §3 "alert"). */
public record AlertPolicy(int failures, int windowSeconds, String webhook) {}
