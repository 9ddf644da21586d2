package dev.hourglass.api;

import java.io.Serializable;

/**
 * One answer of a batch of results (docs/api.md, "Pull consumers": {@code POST /api/v1/results}):
 * the job's state after the result, or the error that refused it (then nothing changed).
 */
public class ResultAnswer implements Serializable {
    private static final long serialVersionUID = 1L;

    private String jobId;
    private int attempt;
    private JobState state;
    private ErrorCode errorCode;
    private String errorMessage;
    private String errorField;

    public String getJobId() {
        return jobId;
    }

    public ResultAnswer setJobId(String jobId) {
        this.jobId = jobId;
        return this;
    }

    public int getAttempt() {
        return attempt;
    }

    public ResultAnswer setAttempt(int attempt) {
        this.attempt = attempt;
        return this;
    }

    public JobState getState() {
        return state;
    }

    public ResultAnswer setState(JobState state) {
        this.state = state;
        return this;
    }

    public ErrorCode getErrorCode() {
        return errorCode;
    }

    public ResultAnswer setErrorCode(ErrorCode errorCode) {
        this.errorCode = errorCode;
        return this;
    }

    public String getErrorMessage() {
        return errorMessage;
    }

    public ResultAnswer setErrorMessage(String errorMessage) {
        this.errorMessage = errorMessage;
        return this;
    }

    public String getErrorField() {
        return errorField;
    }

    public ResultAnswer setErrorField(String errorField) {
        this.errorField = errorField;
        return this;
    }

    public boolean isAccepted() {
        return errorCode == null;
    }
}
