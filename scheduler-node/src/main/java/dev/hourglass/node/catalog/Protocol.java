package dev.hourglass.node.catalog;

/** How a service receives its jobs (SPEC §1 "service"). */
public enum Protocol {
    HTTP,
    KAFKA,
    DUBBO
}
