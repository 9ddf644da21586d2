package dev.hourglass.node.core.service;

/**
 * When to alert on a service (docs/api.md, "Services": {@code alert}; docs/alerts.md): {@code
 * failures} jobs FAILED within {@code windowSeconds}; optionally also {@code consecutiveFailures}
 * failed attempts in a row (null: off) and jobs overdue by more than {@code overdueSeconds} (null:
 * off). Notifications go to {@code webhook} (null: recorded and exported as metrics only).
 */
public record AlertPolicy(
        int failures, int windowSeconds, Integer consecutiveFailures, Integer overdueSeconds, String webhook) {

    /**
     * A policy of {@code failures}, {@code windowSeconds} and {@code webhook}, the optional conditions
     * off (docs/alerts.md).
     */
    public AlertPolicy(int failures, int windowSeconds, String webhook) {
        this(failures, windowSeconds, null, null, webhook);
    }
}
