package dev.hourglass.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One delivery attempt of a job, as a business service receives it (docs/api.md, "Dubbo"). {@code
 * payload} is the job's payload as JSON text; over HTTP it is sent as the JSON value itself
 * (docs/api.md, "HTTP callback").
 */
public class CallbackRequest implements Serializable {
    private static final long serialVersionUID = 1L;

    private String jobId;
    private String app;
    private String service;
    private String bizKey;
    private int attempt;
    private int maxAttempts;
    private Instant fireAt;
    private Instant firedAt;
    private String payload;
    private Map<String, String> attributes = new LinkedHashMap<>();

    public String getJobId() {
        return jobId;
    }

    public void setJobId(String jobId) {
        this.jobId = jobId;
    }

    public String getApp() {
        return app;
    }

    public void setApp(String app) {
        this.app = app;
    }

    public String getService() {
        return service;
    }

    public void setService(String service) {
        this.service = service;
    }

    public String getBizKey() {
        return bizKey;
    }

    public void setBizKey(String bizKey) {
        this.bizKey = bizKey;
    }

    public int getAttempt() {
        return attempt;
    }

    public void setAttempt(int attempt) {
        this.attempt = attempt;
    }

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public Instant getFireAt() {
        return fireAt;
    }

    public void setFireAt(Instant fireAt) {
        this.fireAt = fireAt;
    }

    public Instant getFiredAt() {
        return firedAt;
    }

    public void setFiredAt(Instant firedAt) {
        this.firedAt = firedAt;
    }

    public String getPayload() {
        return payload;
    }

    public void setPayload(String payload) {
        this.payload = payload;
    }

    public Map<String, String> getAttributes() {
        return attributes;
    }

    public void setAttributes(Map<String, String> attributes) {
        this.attributes = attributes == null ? new LinkedHashMap<>() : attributes;
    }
}
