package dev.hourglass.node.core.service;

/** How a service receives its jobs (docs/api.md, "Services": {@code protocol}). */
public enum Protocol {
    HTTP,
    KAFKA,
    DUBBO,
    /** Reserved by pull consumers (docs/api.md, "Pull consumers"); the engine never sends these. */
    PULL
}
