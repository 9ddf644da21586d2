package dev.hourglass.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A schedule as callers see it (docs/api.md, "Schedules"), with its next fire times and its last
 * occurrence (time, job id, job state: null when none was submitted yet or the job is gone).
 */
public class ScheduleView implements Serializable {
    private static final long serialVersionUID = 1L;

    private String name;
    private String app;
    private String service;
    private int shard;
    private String cron;
    private String every;
    private String timeZone;
    private String payload;
    private Map<String, String> attributes = new LinkedHashMap<>();
    private Instant startAt;
    private Instant endAt;
    private String misfire;
    private long catchUpWindowMs;
    private String overlap;
    private boolean paused;
    private Instant pausedAt;
    private Integer maxAttempts;
    private Long timeoutMs;
    private Long expireAfterMs;
    private long generation;
    private List<Instant> nextFireTimes = new ArrayList<>();
    private Instant lastOccurrenceAt;
    private String lastJobId;
    private JobState lastJobState;
    private Instant createdAt;
    private Instant updatedAt;

    public String getName() {
        return name;
    }

    public ScheduleView setName(String name) {
        this.name = name;
        return this;
    }

    public String getApp() {
        return app;
    }

    public ScheduleView setApp(String app) {
        this.app = app;
        return this;
    }

    public String getService() {
        return service;
    }

    public ScheduleView setService(String service) {
        this.service = service;
        return this;
    }

    public int getShard() {
        return shard;
    }

    public ScheduleView setShard(int shard) {
        this.shard = shard;
        return this;
    }

    public String getCron() {
        return cron;
    }

    public ScheduleView setCron(String cron) {
        this.cron = cron;
        return this;
    }

    public String getEvery() {
        return every;
    }

    public ScheduleView setEvery(String every) {
        this.every = every;
        return this;
    }

    public String getTimeZone() {
        return timeZone;
    }

    public ScheduleView setTimeZone(String timeZone) {
        this.timeZone = timeZone;
        return this;
    }

    public String getPayload() {
        return payload;
    }

    public ScheduleView setPayload(String payload) {
        this.payload = payload;
        return this;
    }

    public Map<String, String> getAttributes() {
        return attributes;
    }

    public ScheduleView setAttributes(Map<String, String> attributes) {
        this.attributes = attributes;
        return this;
    }

    public Instant getStartAt() {
        return startAt;
    }

    public ScheduleView setStartAt(Instant startAt) {
        this.startAt = startAt;
        return this;
    }

    public Instant getEndAt() {
        return endAt;
    }

    public ScheduleView setEndAt(Instant endAt) {
        this.endAt = endAt;
        return this;
    }

    public String getMisfire() {
        return misfire;
    }

    public ScheduleView setMisfire(String misfire) {
        this.misfire = misfire;
        return this;
    }

    public long getCatchUpWindowMs() {
        return catchUpWindowMs;
    }

    public ScheduleView setCatchUpWindowMs(long catchUpWindowMs) {
        this.catchUpWindowMs = catchUpWindowMs;
        return this;
    }

    public String getOverlap() {
        return overlap;
    }

    public ScheduleView setOverlap(String overlap) {
        this.overlap = overlap;
        return this;
    }

    public boolean isPaused() {
        return paused;
    }

    public ScheduleView setPaused(boolean paused) {
        this.paused = paused;
        return this;
    }

    public Instant getPausedAt() {
        return pausedAt;
    }

    public ScheduleView setPausedAt(Instant pausedAt) {
        this.pausedAt = pausedAt;
        return this;
    }

    public Integer getMaxAttempts() {
        return maxAttempts;
    }

    public ScheduleView setMaxAttempts(Integer maxAttempts) {
        this.maxAttempts = maxAttempts;
        return this;
    }

    public Long getTimeoutMs() {
        return timeoutMs;
    }

    public ScheduleView setTimeoutMs(Long timeoutMs) {
        this.timeoutMs = timeoutMs;
        return this;
    }

    public Long getExpireAfterMs() {
        return expireAfterMs;
    }

    public ScheduleView setExpireAfterMs(Long expireAfterMs) {
        this.expireAfterMs = expireAfterMs;
        return this;
    }

    public long getGeneration() {
        return generation;
    }

    public ScheduleView setGeneration(long generation) {
        this.generation = generation;
        return this;
    }

    public List<Instant> getNextFireTimes() {
        return nextFireTimes;
    }

    public ScheduleView setNextFireTimes(List<Instant> nextFireTimes) {
        this.nextFireTimes = nextFireTimes;
        return this;
    }

    public Instant getLastOccurrenceAt() {
        return lastOccurrenceAt;
    }

    public ScheduleView setLastOccurrenceAt(Instant lastOccurrenceAt) {
        this.lastOccurrenceAt = lastOccurrenceAt;
        return this;
    }

    public String getLastJobId() {
        return lastJobId;
    }

    public ScheduleView setLastJobId(String lastJobId) {
        this.lastJobId = lastJobId;
        return this;
    }

    public JobState getLastJobState() {
        return lastJobState;
    }

    public ScheduleView setLastJobState(JobState lastJobState) {
        this.lastJobState = lastJobState;
        return this;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    public ScheduleView setCreatedAt(Instant createdAt) {
        this.createdAt = createdAt;
        return this;
    }

    public Instant getUpdatedAt() {
        return updatedAt;
    }

    public ScheduleView setUpdatedAt(Instant updatedAt) {
        this.updatedAt = updatedAt;
        return this;
    }
}
