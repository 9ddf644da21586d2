package dev.hourglass.node.core.job;

/**
 * Counts a job's attempts against its budget. Attempt numbers rise for the job's whole life, so
 * {@code (jobId, attempt)} stays unique; {@code budgetBase} is how many of them do not count: a
 * manual retry starts a fresh budget by setting it to the attempts made, and a pull consumer's
 * RELEASE adds one (the attempt is not spent). The column's comment in the first migration names
 * only the manual retry; migrations are not edited once applied.
 */
public record AttemptBudget(int attempts, int budgetBase, int maxAttempts) {

    /** Attempts made since the last manual retry (or since submit). */
    public int spent() {
        return attempts - budgetBase;
    }

    public boolean hasAttemptsLeft() {
        return spent() < maxAttempts;
    }
}
