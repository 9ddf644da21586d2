package dev.hourglass.node.store.mybatis;

/** One row of {@code hg_audit}. */
public class AuditRow {
    public long id;
    public long at;
    public String actor;
    public String app;
    public String action;
    public String filter;
    public long matched;
    public long changed;
    public long skipped;
    public String error;
}
