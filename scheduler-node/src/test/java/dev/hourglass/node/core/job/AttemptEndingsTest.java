package dev.hourglass.node.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The timeout sweep's results name the claim they were decided from (the row's version as read),
 * so that the writer can drop them once that claim is gone; a sender's results do not need to.
 */
class AttemptEndingsTest {
    private final Job running = Job.builder()
            .id(1)
            .app("app")
            .service("svc")
            .shard(3)
            .state(JobState.RUNNING)
            .fireAt(1_000)
            .dueAt(3_000)
            .attempts(2)
            .maxAttempts(5)
            .timeoutMs(2_000)
            .payload("{}")
            .attributes(Map.of())
            .ownerNode("n1")
            .version(7)
            .build();

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
