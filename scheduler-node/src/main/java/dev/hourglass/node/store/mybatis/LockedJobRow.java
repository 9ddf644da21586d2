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

    /** What {@code r} says of these. */
    static LockedJobRow of(JobRow r) {
        LockedJobRow locked = new LockedJobRow();
        locked.id = r.id;
        locked.app = r.app;
        locked.service = r.service;
        locked.state = r.state;
        locked.attempts = r.attempts;
        locked.ownerNode = r.ownerNode;
        locked.version = r.version;
        return locked;
    }
}
