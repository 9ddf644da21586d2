package dev.hourglass.api;

import java.io.Serializable;

/** One entry of a batch submit's answer: the job, or the error that refused it. */
public class BatchItemResult implements Serializable {
    private static final long serialVersionUID = 1L;

    private JobView job;
    private ErrorCode errorCode;
    private String errorMessage;
    private String errorField;

    public JobView getJob() {
        return job;
    }

    public BatchItemResult setJob(JobView job) {
        this.job = job;
        return this;
    }

    public ErrorCode getErrorCode() {
        return errorCode;
    }

    public BatchItemResult setErrorCode(ErrorCode errorCode) {
        this.errorCode = errorCode;
        return this;
    }

    public String getErrorMessage() {
        return errorMessage;
    }

    public BatchItemResult setErrorMessage(String errorMessage) {
        this.errorMessage = errorMessage;
        return this;
    }

    public String getErrorField() {
        return errorField;
    }

    public BatchItemResult setErrorField(String errorField) {
        this.errorField = errorField;
        return this;
    }
}
