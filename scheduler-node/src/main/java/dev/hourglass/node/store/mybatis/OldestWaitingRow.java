package dev.hourglass.node.store.mybatis;

/** A service and the due time of its oldest waiting job (null: none waits). */
public class OldestWaitingRow {
    public String app;
    public String service;
    public Long dueAt;
}
