package dev.hourglass.api;

/** What a receiver says of one attempt (docs/api.md, "Dubbo" and "HTTP callback"). */
public enum CallbackStatus {
    SUCCESS,
    RETRY,
    FAIL
}
