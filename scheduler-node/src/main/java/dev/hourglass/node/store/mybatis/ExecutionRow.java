package dev.hourglass.node.store.mybatis;

/** A row of job_delay_task_execlog. */
public class ExecutionRow {
    public long jobId;
    public int attempt;
    public String node;
    public long fireAt;
    public long firedAt;
    public Long finishedAt;
    public String outcome;
    public String message;
}
