package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptEndings;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Job;
import org.junit.jupiter.api.Test;

/**
 * The timeout sweep's results name the claim they were decided from (the row's version as read),
 * so that the writer can drop them once that claim is gone; a sender's results do not need to.
 */
class AttemptEndingsTest {
    private final Job running = FakeJobStore.job(1, JobState.RUNNING, 1_000, 3_000, 2, 5, "n1", 2_000, 3);

    @Test
    void theSweepsResultsCarryTheVersionTheyRead() {
        assertThat(AttemptEndings.timedOut(running, Backoff.DEFAULT, 3_001).readVersion())
                .isEqualTo(running.version());
        assertThat(AttemptEndings.ownerLost(running, 2_500).readVersion()).isEqualTo(running.version());
    }

    @Test
    void aSendersResultAppliesToWhicheverClaimHoldsTheAttempt() {
        assertThat(AttemptEndings.notSent(running, "service lookup failed", 1_000)
                        .readVersion())
                .isNull();
    }
}
