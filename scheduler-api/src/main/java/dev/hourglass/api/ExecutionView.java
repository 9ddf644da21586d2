package dev.hourglass.api;

import java.io.Serializable;
import java.time.Instant;

/**
 * One attempt of a job (docs/api.md, "Jobs": {@code GET /api/v1/jobs/{id}/executions}). {@code
 * outcome} and {@code finishedAt} are null while it runs.
 */
public class ExecutionView implements Serializable {
    private static final long serialVersionUID = 1L;

    private int attempt;
    private String node;
    private Instant firedAt;
    private Instant finishedAt;
    private long latenessMs;
    private String outcome;
    private String message;

    public int getAttempt() {
        return attempt;
    }

    public ExecutionView setAttempt(int attempt) {
        this.attempt = attempt;
        return this;
    }

    public String getNode() {
        return node;
    }

    public ExecutionView setNode(String node) {
        this.node = node;
        return this;
    }

    public Instant getFiredAt() {
        return firedAt;
    }

    public ExecutionView setFiredAt(Instant firedAt) {
        this.firedAt = firedAt;
        return this;
    }

    public Instant getFinishedAt() {
        return finishedAt;
    }

    public ExecutionView setFinishedAt(Instant finishedAt) {
        this.finishedAt = finishedAt;
        return this;
    }

    public long getLatenessMs() {
        return latenessMs;
    }

    public ExecutionView setLatenessMs(long latenessMs) {
        this.latenessMs = latenessMs;
        return this;
    }

    public String getOutcome() {
        return outcome;
    }

    public ExecutionView setOutcome(String outcome) {
        this.outcome = outcome;
        return this;
    }

    public String getMessage() {
        return message;
    }

    public ExecutionView setMessage(String message) {
        this.message = message;
        return this;
    }
}
