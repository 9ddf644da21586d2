package dev.hourglass.api;

import java.time.Instant;

/**
 * A job reserved by a pull consumer (docs/api.md, "Pull consumers"): the job, the attempt the
 * reservation is, and its deadline. A result or touch names the attempt; past the deadline without
 * one, the attempt is a TIMEOUT and the job due again after the service's backoff.
 */
public class Reservation extends JobView {
    private static final long serialVersionUID = 1L;

    private int attempt;
    private Instant deadline;

    public int getAttempt() {
        return attempt;
    }

    public Reservation setAttempt(int attempt) {
        this.attempt = attempt;
        return this;
    }

    public Instant getDeadline() {
        return deadline;
    }

    public Reservation setDeadline(Instant deadline) {
        this.deadline = deadline;
        return this;
    }
}
