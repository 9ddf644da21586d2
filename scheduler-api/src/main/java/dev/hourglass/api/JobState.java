package dev.hourglass.api;

/** A job's state (docs/api.md, "Job states"). FINISHED, FAILED, CANCELED and EXPIRED are final. */
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
