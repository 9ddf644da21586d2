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
    /**
     * Never the caller's fault: an error the node did not expect, or a submit whose database went
     * away during its commit and did not come back to tell whether it was stored (the job may exist:
     * look it up by its bizKey before sending it again). docs/api.md, "HTTP API".
     */
    INTERNAL(500);

    private final int httpStatus;

    ErrorCode(int httpStatus) {
        this.httpStatus = httpStatus;
    }

    public int httpStatus() {
        return httpStatus;
    }
}
