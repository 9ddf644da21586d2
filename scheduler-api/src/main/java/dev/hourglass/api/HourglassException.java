package dev.hourglass.api;

/**
 * The one typed error of Hourglass. HTTP maps {@link #code()} to its status; Dubbo carries the
 * exception itself to the caller. {@link #field()} names the offending input when there is one.
 */
public class HourglassException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final String field;

    public HourglassException(ErrorCode code, String message) {
        this(code, message, null);
    }

    public HourglassException(ErrorCode code, String message, String field) {
        super(message);
        this.code = code;
        this.field = field;
    }

    public ErrorCode code() {
        return code;
    }

    public String field() {
        return field;
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
