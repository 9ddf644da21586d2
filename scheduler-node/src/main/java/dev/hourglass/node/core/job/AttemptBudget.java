package dev.hourglass.node.core.job;

/**
 * Counts a job's attempts against its budget. Attempt numbers rise for the job's whole life, so
 * {@code (jobId, attempt)} stays unique; a manual retry starts a fresh budget by remembering how
 * many attempts were spent before it ({@code budgetBase}).
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
