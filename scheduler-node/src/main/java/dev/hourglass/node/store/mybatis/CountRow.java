package dev.hourglass.node.store.mybatis;

/** One group of a live-job count. */
public class CountRow {
    public String app;
    public String service;
    public String state;
    public long count;
}
