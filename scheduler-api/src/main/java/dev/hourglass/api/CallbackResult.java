package dev.hourglass.api;

import java.io.Serializable;

/**
 * The answer of a {@link JobCallbackService}: SUCCESS, RETRY (optionally after {@code retryAfterMs})
 * or FAIL (no more attempts), with a message for the execution log.
 */
public class CallbackResult implements Serializable {
    private static final long serialVersionUID = 1L;

    private CallbackStatus status;
    private Long retryAfterMs;
    private String message;

    public CallbackResult() {}

    public CallbackResult(CallbackStatus status, Long retryAfterMs, String message) {
        this.status = status;
        this.retryAfterMs = retryAfterMs;
        this.message = message;
    }

    public static CallbackResult success() {
        return new CallbackResult(CallbackStatus.SUCCESS, null, null);
    }

    public static CallbackResult retry(String message) {
        return new CallbackResult(CallbackStatus.RETRY, null, message);
    }

    public static CallbackResult retryAfter(long retryAfterMs, String message) {
        return new CallbackResult(CallbackStatus.RETRY, retryAfterMs, message);
    }

    public static CallbackResult fail(String message) {
        return new CallbackResult(CallbackStatus.FAIL, null, message);
    }

    public CallbackStatus getStatus() {
        return status;
    }

    public void setStatus(CallbackStatus status) {
        this.status = status;
    }

    public Long getRetryAfterMs() {
        return retryAfterMs;
    }

    public void setRetryAfterMs(Long retryAfterMs) {
        this.retryAfterMs = retryAfterMs;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    @Override
    public String toString() {
        return "CallbackResult{" + status + ", retryAfterMs=" + retryAfterMs + ", message=" + message + '}';
    }
}
