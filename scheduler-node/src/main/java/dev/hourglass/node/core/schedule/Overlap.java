package dev.hourglass.node.core.schedule;

/** Whether an occurrence is submitted while the previous occurrence's job is still live. */
public enum Overlap {
    /** Always (the default). */
    ALLOW,
    /** Not while the previous occurrence's job is live: that occurrence is skipped. */
    SKIP
}
