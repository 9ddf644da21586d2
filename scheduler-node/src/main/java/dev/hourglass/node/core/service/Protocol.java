package dev.hourglass.node.core.service;

/** How a service receives its jobs (SPEC §1 "service"). */
public enum Protocol {
    HTTP,
    KAFKA,
    DUBBO
}
