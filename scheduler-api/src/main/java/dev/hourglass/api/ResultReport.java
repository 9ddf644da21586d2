package dev.hourglass.api;

import java.io.Serializable;

/**
 * A consumer's result for the current attempt of a job in CONSUMER ack mode or of a pull consumer's
 * reservation (docs/api.md, "Jobs": {@code POST /api/v1/jobs/{id}/result}, and "Pull consumers").
 * {@code jobId} is read in a batch of results only; {@code delayMs} with RELEASE only.
 */
public class ResultReport implements Serializable {
    private static final long serialVersionUID = 1L;

    private String jobId;
    private int attempt;
    private CallbackStatus status;
    private String message;
    private Long retryAfterMs;
    private Long delayMs;

    public String getJobId() {
        return jobId;
    }

    public ResultReport setJobId(String jobId) {
        this.jobId = jobId;
        return this;
    }

    public int getAttempt() {
        return attempt;
    }

    public ResultReport setAttempt(int attempt) {
        this.attempt = attempt;
        return this;
    }

    public CallbackStatus getStatus() {
        return status;
    }

    public ResultReport setStatus(CallbackStatus status) {
        this.status = status;
        return this;
    }

    public String getMessage() {
        return message;
    }

    public ResultReport setMessage(String message) {
        this.message = message;
        return this;
    }

    public Long getRetryAfterMs() {
        return retryAfterMs;
    }

    public ResultReport setRetryAfterMs(Long retryAfterMs) {
        this.retryAfterMs = retryAfterMs;
        return this;
    }

    public Long getDelayMs() {
        return delayMs;
    }

    public ResultReport setDelayMs(Long delayMs) {
        this.delayMs = delayMs;
        return this;
    }
}
