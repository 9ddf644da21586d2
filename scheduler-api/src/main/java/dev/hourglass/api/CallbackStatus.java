package dev.hourglass.api;

/** What a receiver says of one attempt (SPEC §4, §6). */
public enum CallbackStatus {
    SUCCESS,
    RETRY,
    FAIL
}
