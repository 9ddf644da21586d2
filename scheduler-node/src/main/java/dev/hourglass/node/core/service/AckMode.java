package dev.hourglass.node.core.service;

/**
 * AUTO: a job is FINISHED when the broker acknowledged it or the callback returned SUCCESS.
 * CONSUMER: it stays RUNNING until a result is reported, and is delivered again after its timeout.
 */
public enum AckMode {
    AUTO,
    CONSUMER
}
