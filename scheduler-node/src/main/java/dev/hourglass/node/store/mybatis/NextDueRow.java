package dev.hourglass.node.store.mybatis;

/** A service's earliest due DELAYED job, as {@code ReservationMapper.nextDue} reads it. */
public class NextDueRow {
    public String app;
    public String service;
    public Long dueAt;
}
