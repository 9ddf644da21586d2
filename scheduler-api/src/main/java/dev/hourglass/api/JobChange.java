package dev.hourglass.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** A change to a DELAYED job (docs/api.md, "Jobs": PATCH): a new fire time (at most one of {@code fireAt} and {@code delayMs}, the delay counted from the call), payload (JSON text) or attributes; null fields stay as they are. */
public class JobChange implements Serializable {
    private static final long serialVersionUID = 1L;

    private Instant fireAt;
    private Long delayMs;
    private String payload;
    private Map<String, String> attributes = new LinkedHashMap<>();

    public Instant getFireAt() {
        return fireAt;
    }

    public JobChange setFireAt(Instant fireAt) {
        this.fireAt = fireAt;
        return this;
    }

    public Long getDelayMs() {
        return delayMs;
    }

    public JobChange setDelayMs(Long delayMs) {
        this.delayMs = delayMs;
        return this;
    }

    public String getPayload() {
        return payload;
    }

    public JobChange setPayload(String payload) {
        this.payload = payload;
        return this;
    }

    public Map<String, String> getAttributes() {
        return attributes;
    }

    public JobChange setAttributes(Map<String, String> attributes) {
        this.attributes = attributes;
        return this;
    }
}
