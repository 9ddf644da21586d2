package dev.hourglass.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.NextStep;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dashboard's per-second and per-minute rings, rolled by hand at chosen times. */
class FiringHistoryTest {
    private final FiringHistory history = new FiringHistory();

    private static Job job(String service, long fireAt) {
        return new Job(
                1,
                "shop",
                service,
                null,
                0,
                JobState.RUNNING,
                fireAt,
                fireAt,
                null,
                1,
                0,
                3,
                1000,
                null,
                null,
                Map.of(),
                null,
                "n1",
                1,
                0,
                0);
    }

    private static AttemptResult ended(String service, AttemptOutcome outcome) {
        NextStep next = outcome == AttemptOutcome.SUCCESS ? NextStep.finished() : NextStep.failed();
        return new AttemptResult(1, 1, outcome, null, 0L, 0, next, 0, "shop/" + service);
    }

    @Test
    void aPointHoldsWhatHappenedSinceThePreviousRoll() {
        history.fired(job("a", 0), 999); // before the first roll: belongs to no interval
        history.roll(60_000);
        for (long late : new long[] {5, 10, 100}) {
            history.fired(job("a", 60_100), 60_100 + late);
        }
        history.ended(ended("a", AttemptOutcome.SUCCESS));
        history.ended(ended("a", AttemptOutcome.SUCCESS));
        history.ended(ended("b", AttemptOutcome.TIMEOUT));
        history.roll(61_000);
        assertThat(history.lastMinuteByService())
                .as("a service's first attempts count at the first roll after them")
                .containsEntry("shop/a", new FiringHistory.ServiceActivity(2, 0))
                .containsEntry("shop/b", new FiringHistory.ServiceActivity(1, 1));
        history.roll(62_000); // nothing happened in this second

        List<FiringHistory.Point> seconds = history.seconds();
        assertThat(seconds).hasSize(2);
        FiringHistory.Point first = seconds.get(0);
        assertThat(first.at()).isEqualTo(61_000);
        assertThat(first.ms()).isEqualTo(1_000);
        assertThat(first.fired()).isEqualTo(3);
        assertThat(first.attempts())
                .containsEntry(AttemptOutcome.SUCCESS, 2L)
                .containsEntry(AttemptOutcome.TIMEOUT, 1L)
                .containsEntry(AttemptOutcome.FAIL, 0L);
        assertThat(first.p50()).isEqualTo(10);
        assertThat(first.max()).isBetween(100L, 101L); // two significant digits
        assertThat(seconds.get(1).fired()).isZero();
        assertThat(seconds.get(1).max()).isZero();
        assertThat(history.minutes()).isEmpty(); // the minute is still open
    }

    @Test
    void aMinuteClosesWhenARollCrossesIntoTheNextAndTheRingsStayBounded() {
        history.roll(0);
        long t = 0;
        for (int s = 1; s <= 2 * 60 + 5; s++) {
            history.fired(job("a", t), t + s); // lateness = the second's number
            history.ended(ended("a", s % 4 == 0 ? AttemptOutcome.ERROR : AttemptOutcome.SUCCESS));
            t = s * 1_000L;
            history.roll(t);
        }
        List<FiringHistory.Point> minutes = history.minutes();
        assertThat(minutes).hasSize(2);
        assertThat(minutes.get(0).at()).isEqualTo(60_000);
        assertThat(minutes.get(0).ms()).isEqualTo(60_000);
        assertThat(minutes.get(0).fired()).isEqualTo(60);
        assertThat(minutes.get(0).attempts()).containsEntry(AttemptOutcome.ERROR, 15L);
        assertThat(minutes.get(0).max()).isEqualTo(60);
        assertThat(minutes.get(1).fired()).isEqualTo(60);
        assertThat(minutes.get(1).p50()).isBetween(90L, 91L);

        // the service's last minute: the last 60 rolls, 15 of its attempts failed
        assertThat(history.lastMinuteByService()).containsEntry("shop/a", new FiringHistory.ServiceActivity(60, 15));

        for (int s = 0; s < FiringHistory.SECONDS + 50; s++) {
            t += 1_000;
            history.roll(t);
        }
        assertThat(history.seconds()).hasSize(FiringHistory.SECONDS);
        assertThat(history.seconds().get(FiringHistory.SECONDS - 1).at()).isEqualTo(t);
        assertThat(history.lastMinuteByService())
                .as("a service idle for a minute is forgotten")
                .doesNotContainKey("shop/a");
    }

    @Test
    void theFirstMinuteCoversOnlyTheTimeCounted() {
        history.roll(30_000); // counting starts half-way through the minute
        for (long t = 31_000; t <= 60_000; t += 1_000) {
            history.fired(job("a", t), t);
            history.roll(t);
        }
        List<FiringHistory.Point> minutes = history.minutes();
        assertThat(minutes).hasSize(1);
        assertThat(minutes.get(0).ms()).isEqualTo(30_000);
        assertThat(minutes.get(0).fired()).isEqualTo(30);
    }

    @Test
    void aClockThatStepsBackStartsNoInterval() {
        history.roll(10_000);
        history.fired(job("a", 0), 10_500);
        history.roll(9_000);
        assertThat(history.seconds()).isEmpty();
        history.roll(11_000);
        assertThat(history.seconds()).hasSize(1);
    }
}
