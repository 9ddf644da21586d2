package dev.hourglass.node.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private static final Backoff BACKOFF = new Backoff(1_000, 2.0, 60_000);

    /** Job ids as {@link JobIdGenerator} makes them: 41 bits of time, 10 of worker, 12 of sequence. */
    private static long jobId(long millis, int worker, int sequence) {
        return (millis << 22) | ((long) worker << 12) | sequence;
    }

    @Test
    void theJitteredDelayIsNeverShorterThanTheBackoffAndAtMostAFifthLonger() {
        for (int retry = 1; retry <= 12; retry++) {
            long full = BACKOFF.delayBeforeRetry(retry);
            for (int seq = 0; seq < 2_000; seq++) {
                long id = jobId(70_000_000_000L + retry, seq % 7, seq);
                assertThat(BACKOFF.jitteredDelayBeforeRetry(retry, id))
                        .as("retry %d of job %d", retry, id)
                        .isBetween(full, full + full / 5);
            }
        }
    }

    @Test
    void theSameJobAndRetryAlwaysGetTheSameDelay() {
        long id = jobId(70_000_000_000L, 3, 17);
        long first = BACKOFF.jitteredDelayBeforeRetry(2, id);
        for (int i = 0; i < 10; i++) {
            assertThat(BACKOFF.jitteredDelayBeforeRetry(2, id)).isEqualTo(first);
        }
        assertThat(new Backoff(1_000, 2.0, 60_000).jitteredDelayBeforeRetry(2, id))
                .as("an equal backoff, rebuilt (as after a restart)")
                .isEqualTo(first);
    }

    /**
     * 10,000 jobs submitted in one burst (consecutive ids) fail at the same millisecond: their
     * retries are spread evenly over [1000, 1200] ms instead of all landing at +1000 ms.
     */
    @Test
    void jobsThatFailedTogetherComeBackSpreadOverTheRange() {
        Map<Long, Integer> perMillisecond = new HashMap<>();
        long sum = 0;
        int jobs = 10_000;
        for (int n = 0; n < jobs; n++) {
            long id = jobId(70_000_000_000L + n / 4_096, 5, n % 4_096);
            long delay = BACKOFF.jitteredDelayBeforeRetry(1, id);
            perMillisecond.merge(delay, 1, Integer::sum);
            sum += delay;
        }
        int busiest = perMillisecond.values().stream().max(Integer::compare).orElseThrow();
        long belowMiddle = perMillisecond.entrySet().stream()
                .filter(e -> e.getKey() < 1_100)
                .mapToLong(Map.Entry::getValue)
                .sum();
        assertThat(perMillisecond.size())
                .as("distinct retry milliseconds of 201")
                .isGreaterThan(195);
        assertThat(busiest)
                .as("most jobs retried at one millisecond (even: ~50)")
                .isLessThan(100);
        assertThat(sum / (double) jobs).as("mean delay").isBetween(1_090.0, 1_110.0);
        assertThat(belowMiddle).as("jobs in the lower half").isBetween(4_700L, 5_300L);
    }

    @Test
    void eachRetryOfOneJobGetsItsOwnPointInTheRange() {
        Backoff flat = new Backoff(10_000, 1.0, 10_000);
        long id = jobId(70_000_000_000L, 1, 1);
        java.util.Set<Long> delays = new java.util.HashSet<>();
        for (int retry = 1; retry <= 20; retry++) {
            delays.add(flat.jitteredDelayBeforeRetry(retry, id));
        }
        assertThat(delays).as("20 retries of one job, same backoff each time").hasSizeGreaterThan(15);
    }

    @Test
    void smallAndCappedDelays() {
        assertThat(new Backoff(0, 1.0, 0).jitteredDelayBeforeRetry(3, 42)).isZero();
        assertThat(new Backoff(1, 1.0, 1).jitteredDelayBeforeRetry(1, 42)).isEqualTo(1L);
        assertThat(BACKOFF.jitteredDelayBeforeRetry(400, 42)).as("at the cap").isBetween(60_000L, 72_000L);
        assertThat(Backoff.DEFAULT.jitteredDelayBeforeRetry(Integer.MAX_VALUE, Long.MIN_VALUE))
                .isBetween(600_000L, 720_000L);
    }
}
