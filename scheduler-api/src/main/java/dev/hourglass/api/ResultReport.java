package dev.hourglass.api;

import java.io.Serializable;

/**
 * A consumer's result for the current attempt of a job in CONSUMER ack mode (docs/api.md, "Jobs":
 * {@code POST /api/v1/jobs/{id}/result}).
 */
public class ResultReport implements Serializable {
    private static final long serialVersionUID = 1L;

    private int attempt;
    private CallbackStatus status;
    private String message;
    private Long retryAfterMs;

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
}
