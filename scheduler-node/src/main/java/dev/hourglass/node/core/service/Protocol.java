package dev.hourglass.node.core.service;

/** How a service receives its jobs (docs/api.md, "Services": {@code protocol}). */
public enum Protocol {
    HTTP,
    KAFKA,
    DUBBO
}
