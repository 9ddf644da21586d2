package dev.hourglass.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** A job as callers see it (docs/api.md, "Jobs": the Job); {@code payload} is the payload's JSON text. */
public class JobView implements Serializable {
    private static final long serialVersionUID = 1L;

    private String id;
    private String app;
    private String service;
    private String bizKey;
    private JobState state;
    private Instant fireAt;
    private Instant createdAt;
    private Instant updatedAt;
    private int attempts;
    private int maxAttempts;
    private long timeoutMs;
    private Long expireAfterMs;
    private String payload;
    private Map<String, String> attributes = new LinkedHashMap<>();
    private String lastError;
    private int shard;

    public String getId() {
        return id;
    }

    public JobView setId(String id) {
        this.id = id;
        return this;
    }

    public String getApp() {
        return app;
    }

    public JobView setApp(String app) {
        this.app = app;
        return this;
    }

    public String getService() {
        return service;
    }

    public JobView setService(String service) {
        this.service = service;
        return this;
    }

    public String getBizKey() {
        return bizKey;
    }

    public JobView setBizKey(String bizKey) {
        this.bizKey = bizKey;
        return this;
    }

    public JobState getState() {
        return state;
    }

    public JobView setState(JobState state) {
        this.state = state;
        return this;
    }

    public Instant getFireAt() {
        return fireAt;
    }

    public JobView setFireAt(Instant fireAt) {
        this.fireAt = fireAt;
        return this;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    public JobView setCreatedAt(Instant createdAt) {
        this.createdAt = createdAt;
        return this;
    }

    public Instant getUpdatedAt() {
        return updatedAt;
    }

    public JobView setUpdatedAt(Instant updatedAt) {
        this.updatedAt = updatedAt;
        return this;
    }

    public int getAttempts() {
        return attempts;
    }

    public JobView setAttempts(int attempts) {
        this.attempts = attempts;
        return this;
    }

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public JobView setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
        return this;
    }

    public long getTimeoutMs() {
        return timeoutMs;
    }

    public JobView setTimeoutMs(long timeoutMs) {
        this.timeoutMs = timeoutMs;
        return this;
    }

    public Long getExpireAfterMs() {
        return expireAfterMs;
    }

    public JobView setExpireAfterMs(Long expireAfterMs) {
        this.expireAfterMs = expireAfterMs;
        return this;
    }

    public String getPayload() {
        return payload;
    }

    public JobView setPayload(String payload) {
        this.payload = payload;
        return this;
    }

    public Map<String, String> getAttributes() {
        return attributes;
    }

    public JobView setAttributes(Map<String, String> attributes) {
        this.attributes = attributes;
        return this;
    }

    public String getLastError() {
        return lastError;
    }

    public JobView setLastError(String lastError) {
        this.lastError = lastError;
        return this;
    }

    public int getShard() {
        return shard;
    }

    public JobView setShard(int shard) {
        this.shard = shard;
        return this;
    }
}
