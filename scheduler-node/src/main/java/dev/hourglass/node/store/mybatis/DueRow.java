package dev.hourglass.node.store.mybatis;

/** The few columns the loader needs of a due job. */
public class DueRow {
    public long id;
    public long dueAt;
    public String app;
    public String service;
    public int shard;
}
