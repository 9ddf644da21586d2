package dev.hourglass.node.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.api.JobState;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    private static final Backoff BACKOFF = new Backoff(1_000, 2.0, 5_000);
    private static final long JOB = 293_601_280_004_102L;

    /** When retry {@code n} of {@link #JOB} comes after {@code now}: the backoff plus the job's jitter. */
    private static long retryTime(long now, int n) {
        long wait = BACKOFF.jitteredDelayBeforeRetry(n, JOB);
        assertThat(wait).isBetween(BACKOFF.delayBeforeRetry(n), BACKOFF.delayBeforeRetry(n) * 6 / 5);
        return now + wait;
    }

    @Test
    void backoffGrowsExponentiallyUpToItsCap() {
        assertThat(BACKOFF.delayBeforeRetry(1)).isEqualTo(1_000);
        assertThat(BACKOFF.delayBeforeRetry(2)).isEqualTo(2_000);
        assertThat(BACKOFF.delayBeforeRetry(3)).isEqualTo(4_000);
        assertThat(BACKOFF.delayBeforeRetry(4)).isEqualTo(5_000);
        assertThat(BACKOFF.delayBeforeRetry(400)).isEqualTo(5_000);
        assertThatThrownBy(() -> BACKOFF.delayBeforeRetry(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(10, 0.5, 100)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A node that claimed an attempt ahead of its fire time and then left: the next attempt waits
     * for the fire time (ScalingIT saw one delivered 37 ms early when it went out "now").
     */
    @Test
    void anAttemptLostWithItsOwnerIsRetriedAtOnceButNeverBeforeTheFireTime() {
        AttemptBudget budget = new AttemptBudget(1, 0, 5);
        assertThat(RetryPolicy.nextAfterOwnerLost(budget, 10_000, 10_080)).isEqualTo(NextStep.retryAt(10_080));
        assertThat(RetryPolicy.nextAfterOwnerLost(budget, 10_000, 9_000)).isEqualTo(NextStep.retryAt(10_000));
        assertThat(RetryPolicy.nextAfterOwnerLost(new AttemptBudget(5, 0, 5), 10_000, 9_000)
                        .state())
                .isEqualTo(JobState.FAILED);
    }

    @Test
    void successFinishesAndFailFailsWhateverTheBudget() {
        AttemptBudget fresh = new AttemptBudget(1, 0, 5);
        assertThat(RetryPolicy.next(JOB, fresh, AttemptOutcome.SUCCESS, null, BACKOFF, 0)
                        .state())
                .isEqualTo(JobState.FINISHED);
        assertThat(RetryPolicy.next(JOB, fresh, AttemptOutcome.FAIL, null, BACKOFF, 0)
                        .state())
                .isEqualTo(JobState.FAILED);
    }

    @Test
    void retryableOutcomesRetryAfterBackoffWhileAttemptsLast() {
        for (AttemptOutcome o :
                new AttemptOutcome[] {AttemptOutcome.RETRY, AttemptOutcome.TIMEOUT, AttemptOutcome.ERROR}) {
            NextStep first = RetryPolicy.next(JOB, new AttemptBudget(1, 0, 3), o, null, BACKOFF, 10_000);
            assertThat(first).isEqualTo(NextStep.retryAt(retryTime(10_000, 1)));
            NextStep second = RetryPolicy.next(JOB, new AttemptBudget(2, 0, 3), o, null, BACKOFF, 10_000);
            assertThat(second).isEqualTo(NextStep.retryAt(retryTime(10_000, 2)));
            assertThat(RetryPolicy.next(JOB, new AttemptBudget(3, 0, 3), o, null, BACKOFF, 10_000))
                    .isEqualTo(NextStep.failed());
        }
    }

    @Test
    void theReceiversRetryAfterWinsWhenLonger() {
        AttemptBudget b = new AttemptBudget(1, 0, 3);
        assertThat(RetryPolicy.next(JOB, b, AttemptOutcome.RETRY, 7_000L, BACKOFF, 0))
                .isEqualTo(NextStep.retryAt(7_000));
        assertThat(RetryPolicy.next(JOB, b, AttemptOutcome.RETRY, 10L, BACKOFF, 0))
                .isEqualTo(NextStep.retryAt(retryTime(0, 1)));
    }

    @Test
    void aHugeRetryAfterNeverWrapsTheRetryTimeIntoThePast() {
        AttemptBudget b = new AttemptBudget(1, 0, 3);
        long now = 1_763_000_000_000L;
        assertThat(RetryPolicy.next(JOB, b, AttemptOutcome.RETRY, Long.MAX_VALUE, BACKOFF, now))
                .isEqualTo(NextStep.retryAt(Long.MAX_VALUE));
    }

    @Test
    void aManualRetryStartsAFreshBudget() {
        // 3 attempts spent before the manual retry; attempt 4 is the first of the new budget
        AttemptBudget afterRevive = new AttemptBudget(4, 3, 3);
        assertThat(afterRevive.spent()).isEqualTo(1);
        assertThat(RetryPolicy.next(JOB, afterRevive, AttemptOutcome.RETRY, null, BACKOFF, 0))
                .isEqualTo(NextStep.retryAt(retryTime(0, 1)));
        assertThat(RetryPolicy.next(JOB, new AttemptBudget(6, 3, 3), AttemptOutcome.RETRY, null, BACKOFF, 0))
                .isEqualTo(NextStep.failed());
    }

    /** A receiver that was down failed 1,000 jobs at once: they come back spread, none before the backoff. */
    @Test
    void jobsThatFailedTogetherAreRetriedSpreadOutAndNeverBeforeTheBackoff() {
        java.util.Set<Long> counted = new java.util.HashSet<>();
        java.util.Set<Long> uncounted = new java.util.HashSet<>();
        for (long id = 1; id <= 1_000; id++) {
            NextStep n = RetryPolicy.next(id, new AttemptBudget(1, 0, 3), AttemptOutcome.ERROR, null, BACKOFF, 10_000);
            assertThat(n.retryAt()).isBetween(11_000L, 11_200L);
            counted.add(n.retryAt());
            NextStep u = RetryPolicy.nextAfterUndelivered(id, new AttemptBudget(2, 0, 3), BACKOFF, 10_000);
            assertThat(u.retryAt()).isBetween(12_000L, 12_400L);
            assertThat(u.uncounted()).isEqualTo(NextStep.Uncounted.BUDGET_EXTENDED);
            assertThat(u.maxAttemptsAdded()).isEqualTo(1);
            assertThat(u.budgetBaseAdded()).isZero();
            uncounted.add(u.retryAt());
        }
        assertThat(counted).as("distinct retry times of 201 possible").hasSizeGreaterThan(180);
        assertThat(uncounted).as("distinct retry times of 401 possible").hasSizeGreaterThan(300);
    }

    /** A RELEASE leaves the budget, the next backoff step and maxAttempts as they were. */
    @Test
    void aReleasedAttemptIsNotSpent() {
        NextStep released = RetryPolicy.afterRelease(JOB, new AttemptBudget(1, 0, 2), 300, BACKOFF, 10_000);
        assertThat(released).isEqualTo(NextStep.retryNotSpent(10_300));
        assertThat(released.budgetBaseAdded()).isEqualTo(1);
        assertThat(released.maxAttemptsAdded()).isZero();
        // the store then holds (attempts 1, budgetBase 1): the next reservation is attempt 2, and its
        // RETRY waits the first backoff step, not the second
        AttemptBudget afterTheRelease = new AttemptBudget(2, 1, 2);
        assertThat(afterTheRelease.spent()).isEqualTo(1);
        assertThat(RetryPolicy.next(JOB, afterTheRelease, AttemptOutcome.RETRY, null, BACKOFF, 20_000))
                .isEqualTo(NextStep.retryAt(retryTime(20_000, 1)));
        assertThat(RetryPolicy.next(JOB, new AttemptBudget(3, 1, 2), AttemptOutcome.RETRY, null, BACKOFF, 20_000))
                .as("two counted attempts spend a budget of two")
                .isEqualTo(NextStep.failed());
    }

    /**
     * Releases stop being free at the 1,000th attempt in all, whatever maxAttempts says (until
     * 2026-11-28 the bound was on maxAttempts, so on a service with maxAttempts 1,000 the first
     * RELEASE counted).
     */
    @Test
    void releasesCountFromTheThousandthAttemptInAll() {
        assertThat(RetryPolicy.afterRelease(JOB, new AttemptBudget(1, 0, JobBounds.MAX_ATTEMPTS), 0, BACKOFF, 0))
                .isEqualTo(NextStep.retryNotSpent(0));
        NextStep counted =
                RetryPolicy.afterRelease(JOB, new AttemptBudget(JobBounds.MAX_ATTEMPTS, 998, 5), 0, BACKOFF, 0);
        assertThat(counted.uncounted()).isEqualTo(NextStep.Uncounted.NO);
        assertThat(counted).isEqualTo(NextStep.retryAt(retryTime(0, 2)));
        assertThat(RetryPolicy.afterRelease(JOB, new AttemptBudget(JobBounds.MAX_ATTEMPTS, 995, 5), 0, BACKOFF, 0))
                .as("the last counted attempt released at the bound fails the job")
                .isEqualTo(NextStep.failed());
    }

    @Test
    void aConsumersRetryWithADelayIsDueAfterExactlyThatDelayWhileTheBudgetLasts() {
        assertThat(RetryPolicy.afterConsumerRetry(new AttemptBudget(1, 0, 3), 200, 10_000))
                .as("shorter than the backoff")
                .isEqualTo(NextStep.retryAt(10_200));
        assertThat(RetryPolicy.afterConsumerRetry(new AttemptBudget(2, 0, 3), 0, 10_000))
                .isEqualTo(NextStep.retryAt(10_000));
        assertThat(RetryPolicy.afterConsumerRetry(new AttemptBudget(3, 0, 3), 200, 10_000))
                .isEqualTo(NextStep.failed());
    }
}
