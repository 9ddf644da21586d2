package dev.hourglass.node.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.api.JobState;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JobTransitionsTest {
    /** The job states of docs/api.md ("Job states"), written out pair by pair; every one of the 36 pairs is checked against the table. */
    private static final Set<String> DOCUMENTED = Set.of(
            "DELAYED>RUNNING",
            "RUNNING>FINISHED",
            "RUNNING>DELAYED",
            "RUNNING>FAILED",
            "DELAYED>CANCELED",
            "RUNNING>CANCELED",
            "DELAYED>EXPIRED",
            "FAILED>DELAYED",
            "CANCELED>DELAYED",
            "EXPIRED>DELAYED");

    @Test
    void theTableIsExactlyTheDocumentedOne() {
        int allowed = 0;
        for (JobState from : JobState.values()) {
            for (JobState to : JobState.values()) {
                boolean expected = DOCUMENTED.contains(from + ">" + to);
                assertThat(JobTransitions.isAllowed(from, to))
                        .as(from + " -> " + to)
                        .isEqualTo(expected);
                allowed += expected ? 1 : 0;
            }
        }
        assertThat(allowed).isEqualTo(DOCUMENTED.size());
    }

    @Test
    void sourcesAreTheInverseOfTheTable() {
        assertThat(JobTransitions.sourcesOf(JobState.CANCELED))
                .isEqualTo(EnumSet.of(JobState.DELAYED, JobState.RUNNING));
        assertThat(JobTransitions.sourcesOf(JobState.DELAYED))
                .isEqualTo(EnumSet.of(JobState.RUNNING, JobState.FAILED, JobState.CANCELED, JobState.EXPIRED));
        assertThat(JobTransitions.sourcesOf(JobState.RUNNING)).isEqualTo(EnumSet.of(JobState.DELAYED));
    }

    @Test
    void finalStatesLeadOnlyBackToDelayedAndFinishedNowhere() {
        for (JobState to : JobState.values()) {
            assertThat(JobTransitions.isAllowed(JobState.FINISHED, to)).isFalse();
        }
        assertThatThrownBy(() -> JobTransitions.check(JobState.FINISHED, JobState.DELAYED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("FINISHED -> DELAYED");
    }
}
