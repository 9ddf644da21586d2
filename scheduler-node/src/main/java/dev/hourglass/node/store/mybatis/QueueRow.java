package dev.hourglass.node.store.mybatis;

/** One service's queue counts, as {@code ReservationMapper.queue} reads them. */
public class QueueRow {
    public long ready;
    public long reserved;
    /** DELAYED and not due yet ({@code delayed} is a reserved word in MySQL). */
    public long notDue;

    public Long oldestReadyDueAt;
}
