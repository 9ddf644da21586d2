package dev.hourglass.api;

/**
 * The one typed error of Hourglass. HTTP maps {@link #code()} to its status; Dubbo carries the
 * exception itself to the caller. {@link #field()} names the offending input when there is one;
 * {@link #retryAfterMs()} is the wait the node asked for ({@code Retry-After}) with a {@code
 * RATE_LIMITED} or {@code UNAVAILABLE} answer; a failure to reach the node keeps its cause.
 */
public class HourglassException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final String field;
    private final Long retryAfterMs;

    public HourglassException(ErrorCode code, String message) {
        this(code, message, null, null, null);
    }

    public HourglassException(ErrorCode code, String message, String field) {
        this(code, message, field, null, null);
    }

    /**
     * @param field the input at fault, or null
     * @param retryAfterMs how long the node asked the caller to wait before trying again, or null
     * @param cause what went wrong underneath, or null
     */
    public HourglassException(ErrorCode code, String message, String field, Long retryAfterMs, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.field = field;
        this.retryAfterMs = retryAfterMs;
    }

    /** The error's code: what went wrong, as the API names it. */
    public ErrorCode code() {
        return code;
    }

    /** The input at fault, as the request named it, or null. */
    public String field() {
        return field;
    }

    /** The wait in milliseconds the node asked for before a retry ({@code Retry-After}), or null. */
    public Long retryAfterMs() {
        return retryAfterMs;
    }

    public static HourglassException invalid(String field, String message) {
        return new HourglassException(ErrorCode.INVALID_ARGUMENT, message, field);
    }

    public static HourglassException notFound(String message) {
        return new HourglassException(ErrorCode.NOT_FOUND, message);
    }

    public static HourglassException conflict(String message) {
        return new HourglassException(ErrorCode.CONFLICT, message);
    }

    /** A conflict about one field of the request (a result or touch for an attempt that is not current: {@code attempt}). */
    public static HourglassException conflict(String field, String message) {
        return new HourglassException(ErrorCode.CONFLICT, message, field);
    }
}
