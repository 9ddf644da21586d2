package dev.hourglass.node.core.alert;

/** The conditions a service's alert policy watches (docs/alerts.md). */
public enum AlertKind {
    /** At least {@code failures} jobs of the service ended FAILED within {@code windowSeconds}. */
    FAILED_JOBS,
    /** The service's latest {@code consecutiveFailures} attempts all failed (no SUCCESS among them). */
    CONSECUTIVE_FAILURES,
    /** A job of the service is still waiting {@code overdueSeconds} after its fire time. */
    OVERDUE
}
