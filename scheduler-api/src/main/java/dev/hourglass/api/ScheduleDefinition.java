package dev.hourglass.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A schedule to create or replace (docs/api.md, "Schedules": the PUT body). Exactly one of {@code cron}
 * and {@code every} (an ISO-8601 duration); {@code payload} is JSON text; null fields take their defaults.
 */
public class ScheduleDefinition implements Serializable {
    private static final long serialVersionUID = 1L;

    private String service;
    private String cron;
    private String every;
    private String timeZone;
    private String payload;
    private Map<String, String> attributes = new LinkedHashMap<>();
    private Instant startAt;
    private Instant endAt;
    private String misfire;
    private Long catchUpWindowMs;
    private String overlap;
    private Boolean paused;
    private Integer maxAttempts;
    private Long timeoutMs;
    private Long expireAfterMs;

    public String getService() {
        return service;
    }

    public ScheduleDefinition setService(String service) {
        this.service = service;
        return this;
    }

    public String getCron() {
        return cron;
    }

    public ScheduleDefinition setCron(String cron) {
        this.cron = cron;
        return this;
    }

    public String getEvery() {
        return every;
    }

    public ScheduleDefinition setEvery(String every) {
        this.every = every;
        return this;
    }

    public String getTimeZone() {
        return timeZone;
    }

    public ScheduleDefinition setTimeZone(String timeZone) {
        this.timeZone = timeZone;
        return this;
    }

    public String getPayload() {
        return payload;
    }

    public ScheduleDefinition setPayload(String payload) {
        this.payload = payload;
        return this;
    }

    public Map<String, String> getAttributes() {
        return attributes;
    }

    public ScheduleDefinition setAttributes(Map<String, String> attributes) {
        this.attributes = attributes;
        return this;
    }

    public Instant getStartAt() {
        return startAt;
    }

    public ScheduleDefinition setStartAt(Instant startAt) {
        this.startAt = startAt;
        return this;
    }

    public Instant getEndAt() {
        return endAt;
    }

    public ScheduleDefinition setEndAt(Instant endAt) {
        this.endAt = endAt;
        return this;
    }

    public String getMisfire() {
        return misfire;
    }

    public ScheduleDefinition setMisfire(String misfire) {
        this.misfire = misfire;
        return this;
    }

    public Long getCatchUpWindowMs() {
        return catchUpWindowMs;
    }

    public ScheduleDefinition setCatchUpWindowMs(Long catchUpWindowMs) {
        this.catchUpWindowMs = catchUpWindowMs;
        return this;
    }

    public String getOverlap() {
        return overlap;
    }

    public ScheduleDefinition setOverlap(String overlap) {
        this.overlap = overlap;
        return this;
    }

    public Boolean getPaused() {
        return paused;
    }

    public ScheduleDefinition setPaused(Boolean paused) {
        this.paused = paused;
        return this;
    }

    public Integer getMaxAttempts() {
        return maxAttempts;
    }

    public ScheduleDefinition setMaxAttempts(Integer maxAttempts) {
        this.maxAttempts = maxAttempts;
        return this;
    }

    public Long getTimeoutMs() {
        return timeoutMs;
    }

    public ScheduleDefinition setTimeoutMs(Long timeoutMs) {
        this.timeoutMs = timeoutMs;
        return this;
    }

    public Long getExpireAfterMs() {
        return expireAfterMs;
    }

    public ScheduleDefinition setExpireAfterMs(Long expireAfterMs) {
        this.expireAfterMs = expireAfterMs;
        return this;
    }
}
