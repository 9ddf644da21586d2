package dev.hourglass.api;

/** A job's state (SPEC §1). FINISHED, FAILED, CANCELED and EXPIRED are final. */
public enum JobState {
    DELAYED,
    RUNNING,
    FINISHED,
    FAILED,
    CANCELED,
    EXPIRED;

    public boolean isFinal() {
        return this != DELAYED && this != RUNNING;
    }
}
