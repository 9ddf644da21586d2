package dev.hourglass.api;

/** The error codes of docs/api.md, "HTTP API", shared by the HTTP and Dubbo front doors. */
public enum ErrorCode {
    INVALID_ARGUMENT(400),
    UNAUTHENTICATED(401),
    PERMISSION_DENIED(403),
    NOT_FOUND(404),
    CONFLICT(409),
    PAYLOAD_TOO_LARGE(413),
    RATE_LIMITED(429),
    UNAVAILABLE(503),
    /** An error the node did not expect (a bug), never the caller's fault (docs/api.md, "HTTP API"). */
    INTERNAL(500);

    private final int httpStatus;

    ErrorCode(int httpStatus) {
        this.httpStatus = httpStatus;
    }

    public int httpStatus() {
        return httpStatus;
    }
}
