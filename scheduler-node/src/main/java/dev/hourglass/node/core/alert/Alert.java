package dev.hourglass.node.core.alert;

import dev.hourglass.node.core.job.Job;

/**
 * One alert: opened FIRING when its condition held, RESOLVED when it cleared. {@code observed} is
 * the measure that opened it (later: that resolved it); times are epoch ms.
 */
public record Alert(
        long id,
        String app,
        String service,
        AlertKind kind,
        State state,
        long threshold,
        long observed,
        String message,
        long firedAt,
        Long resolvedAt,
        String ackedBy,
        Long ackedAt,
        String webhook,
        State notifiedState,
        int notifyAttempts,
        Long nextNotifyAt,
        String lastNotifyError) {

    public enum State {
        FIRING,
        RESOLVED
    }

    public String serviceKey() {
        return Job.serviceKey(app, service);
    }
}
