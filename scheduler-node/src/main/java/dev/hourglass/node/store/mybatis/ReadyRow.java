package dev.hourglass.node.store.mybatis;

/** A ready job of a PULL service, as {@code ReservationMapper.readyRows} reads it. */
public class ReadyRow {
    public long id;
    public Long expireAt;
    public long dueAt;
}
