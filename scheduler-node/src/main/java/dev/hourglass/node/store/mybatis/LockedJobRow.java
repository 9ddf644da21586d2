package dev.hourglass.node.store.mybatis;

/** What a transaction needs to know of a live job it has locked before it changes the job's state. */
public class LockedJobRow {
    public long id;
    public String app;
    public String service;
    public String state;
    public int attempts;
    public String ownerNode;
    public int version;
}
