package dev.hourglass.node.store.mybatis;

/** A row of job_delay_task or job_delay_task_backlog, as MyBatis maps it. */
public class JobRow {
    public long id;
    public String app;
    public String service;
    public String bizKey;
    public int shard;
    public String state;
    public long fireAt;
    public long dueAt;
    public Long expireAt;
    public int attempts;
    public int budgetBase;
    public int maxAttempts;
    public long timeoutMs;
    public Long expireAfterMs;
    public String payload;
    public String attributes;
    public String lastError;
    public String ownerNode;
    public String claimToken;
    public int version;
    public long createdAt;
    public long updatedAt;
    /**
     * When the running attempt was sent or handed out (planned, until the sender knows); read only
     * by {@link JobRowSelect#lockLiveWhole}, for the attempt's log row. Not a column of the backlog.
     */
    public Long startedAt;
}
