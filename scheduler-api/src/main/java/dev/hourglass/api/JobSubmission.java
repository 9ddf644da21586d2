package dev.hourglass.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** A job to submit (docs/api.md, "Jobs": the submit body). Exactly one of {@code fireAt} and {@code delayMs}; {@code payload} is JSON text. */
public class JobSubmission implements Serializable {
    private static final long serialVersionUID = 1L;

    private String service;
    private Instant fireAt;
    private Long delayMs;
    private String payload;
    private String bizKey;
    private Map<String, String> attributes = new LinkedHashMap<>();
    private Integer maxAttempts;
    private Long timeoutMs;
    private Long expireAfterMs;

    public String getService() {
        return service;
    }

    public JobSubmission setService(String service) {
        this.service = service;
        return this;
    }

    public Instant getFireAt() {
        return fireAt;
    }

    public JobSubmission setFireAt(Instant fireAt) {
        this.fireAt = fireAt;
        return this;
    }

    public Long getDelayMs() {
        return delayMs;
    }

    public JobSubmission setDelayMs(Long delayMs) {
        this.delayMs = delayMs;
        return this;
    }

    public String getPayload() {
        return payload;
    }

    public JobSubmission setPayload(String payload) {
        this.payload = payload;
        return this;
    }

    public String getBizKey() {
        return bizKey;
    }

    public JobSubmission setBizKey(String bizKey) {
        this.bizKey = bizKey;
        return this;
    }

    public Map<String, String> getAttributes() {
        return attributes;
    }

    public JobSubmission setAttributes(Map<String, String> attributes) {
        this.attributes = attributes;
        return this;
    }

    public Integer getMaxAttempts() {
        return maxAttempts;
    }

    public JobSubmission setMaxAttempts(Integer maxAttempts) {
        this.maxAttempts = maxAttempts;
        return this;
    }

    public Long getTimeoutMs() {
        return timeoutMs;
    }

    public JobSubmission setTimeoutMs(Long timeoutMs) {
        this.timeoutMs = timeoutMs;
        return this;
    }

    public Long getExpireAfterMs() {
        return expireAfterMs;
    }

    public JobSubmission setExpireAfterMs(Long expireAfterMs) {
        this.expireAfterMs = expireAfterMs;
        return this;
    }
}
