package dev.hourglass.node.store.mybatis;

/** The primary key of a job_delay_task_execlog row. */
public class ExecutionKey {
    public long jobId;
    public int attempt;
}
