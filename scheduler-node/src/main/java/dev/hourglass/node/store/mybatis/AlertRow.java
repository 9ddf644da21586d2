package dev.hourglass.node.store.mybatis;

/** One row of {@code hg_alert}. */
public class AlertRow {
    public long id;
    public String app;
    public String service;
    public String kind;
    public String state;
    public String openKey;
    public long threshold;
    public long observed;
    public String message;
    public long firedAt;
    public Long resolvedAt;
    public String ackedBy;
    public Long ackedAt;
    public String webhook;
    public String notifiedState;
    public int notifyAttempts;
    public Long nextNotifyAt;
    public String lastNotifyError;
}
