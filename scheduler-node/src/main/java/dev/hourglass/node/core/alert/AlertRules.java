package dev.hourglass.node.core.alert;

import dev.hourglass.node.core.service.AlertPolicy;
import java.util.ArrayList;
import java.util.List;

/**
 * Judges a service's alert policy against what the store observed: which conditions hold now.
 * Pure: the caller measures (see {@link Observation}) and keeps the alerts' lifecycle.
 */
public final class AlertRules {
    private AlertRules() {}

    /**
     * What was measured for one service. {@code failedInWindow}: jobs that ended FAILED within the
     * policy's window. {@code failedStreak}: how many of its latest finished attempts failed in a
     * row (read up to the policy's {@code consecutiveFailures}). {@code oldestOverdueMs}: how long
     * past its fire time its oldest waiting job is (0: none waiting past its fire time).
     */
    public record Observation(long failedInWindow, long failedStreak, long oldestOverdueMs) {}

    /** One condition of the policy, held or not, with the figures a notification names. */
    public record Check(AlertKind kind, boolean holds, long observed, long threshold, String message) {}

    /** The checks of every condition the policy names. */
    public static List<Check> check(AlertPolicy policy, Observation seen) {
        List<Check> checks = new ArrayList<>(3);
        checks.add(new Check(
                AlertKind.FAILED_JOBS,
                seen.failedInWindow() >= policy.failures(),
                seen.failedInWindow(),
                policy.failures(),
                seen.failedInWindow() + " jobs FAILED in the last " + policy.windowSeconds() + " s (threshold "
                        + policy.failures() + ")"));
        if (policy.consecutiveFailures() != null) {
            checks.add(new Check(
                    AlertKind.CONSECUTIVE_FAILURES,
                    seen.failedStreak() >= policy.consecutiveFailures(),
                    seen.failedStreak(),
                    policy.consecutiveFailures(),
                    "the latest " + seen.failedStreak() + " attempts failed in a row (threshold "
                            + policy.consecutiveFailures() + ")"));
        }
        if (policy.overdueSeconds() != null) {
            long thresholdMs = policy.overdueSeconds() * 1_000L;
            checks.add(new Check(
                    AlertKind.OVERDUE,
                    seen.oldestOverdueMs() > thresholdMs,
                    seen.oldestOverdueMs(),
                    thresholdMs,
                    "the oldest waiting job is " + seen.oldestOverdueMs() + " ms past its fire time (threshold "
                            + thresholdMs + " ms)"));
        }
        return checks;
    }

    /**
     * When to try a notification again after {@code attempts} failed ones: 5 s, doubling, at most
     * 10 minutes apart; for as long as the alert is owed one.
     */
    public static long retryDelayMs(int attempts) {
        long delay = 5_000L << Math.min(Math.max(attempts - 1, 0), 7); // 5 s .. 640 s
        return Math.min(delay, 600_000L);
    }
}
