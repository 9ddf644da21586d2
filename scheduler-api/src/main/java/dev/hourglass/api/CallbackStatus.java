package dev.hourglass.api;

/** What a receiver says of one attempt (docs/api.md, "Dubbo" and "HTTP callback"). */
public enum CallbackStatus {
    SUCCESS,
    RETRY,
    FAIL,
    /**
     * Pull consumers only (docs/api.md, "Pull consumers"): the job goes back to its queue without
     * using an attempt, after the report's {@code delayMs}. A push receiver that answers it is read
     * as RETRY: it has used the attempt by being called.
     */
    RELEASE
}
