package dev.hourglass.node.store.mybatis;

/** A PULL service's ready jobs and open reservations, as {@code ReservationMapper.backlogs} reads them. */
public class BacklogRow {
    public String app;
    public String service;
    public long ready;
    public long reserved;
    public Long oldestReadyDueAt;
}
