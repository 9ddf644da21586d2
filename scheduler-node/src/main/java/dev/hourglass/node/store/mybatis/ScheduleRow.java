package dev.hourglass.node.store.mybatis;

/** A row of hg_schedule (V12__schedules.sql). */
public class ScheduleRow {
    public String app;
    public String name;
    public int shard;
    public String service;
    public String cron;
    public Long everyMs;
    public String timeZone;
    public String payload;
    public String attributes;
    public Long startAt;
    public Long endAt;
    public String misfire;
    public long catchUpWindowMs;
    public String overlap;
    public boolean paused;
    public Long pausedAt;
    public Integer maxAttempts;
    public Long timeoutMs;
    public Long expireAfterMs;
    public long generation;
    public long cursorAt;
    public Long nextCheckAt;
    public Long lastOccurrenceAt;
    public Long lastJobId;
    public long createdAt;
    public long updatedAt;
}
