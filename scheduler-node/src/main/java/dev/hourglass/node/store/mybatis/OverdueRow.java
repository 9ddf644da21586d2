package dev.hourglass.node.store.mybatis;

/** A waiting job past a due time, as the overdue scan reads it. */
public class OverdueRow {
    public int shard;
    public String app;
    public String service;
    public long dueAt;
    /** Read from the part of PULL jobs (each shard has two, each with its own limit). */
    public boolean pulled;
}
