package dev.hourglass.node.store.mybatis;

/** A job's current attempt number. */
public class AttemptRow {
    public long jobId;
    public int attempt;
}
