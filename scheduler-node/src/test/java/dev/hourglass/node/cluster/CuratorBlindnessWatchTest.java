package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CuratorBlindnessWatchTest {
    private static final long MS = 1_000_000L;
    private final CuratorBlindnessWatch watch = new CuratorBlindnessWatch(Duration.ofSeconds(2));

    @Test
    void saysSoOnceTheSessionAnsweredForThePatienceWhileCuratorCalledItDisconnected() {
        assertThat(watch.answered(7, false, 0)).isFalse();
        assertThat(watch.answered(7, false, 1_999 * MS)).isFalse();
        assertThat(watch.answered(7, false, 2_000 * MS)).isTrue();
    }

    @Test
    void thenWatchesAfreshWithTwiceThePatienceSoARepeatedCauseDoesNotChurnSessions() {
        watch.answered(7, false, 0);
        assertThat(watch.answered(7, false, 2_000 * MS)).isTrue();
        assertThat(watch.answered(7, false, 3_000 * MS)).isFalse(); // watching again from here
        assertThat(watch.answered(7, false, 6_999 * MS)).isFalse();
        assertThat(watch.answered(7, false, 7_000 * MS)).isTrue();
        assertThat(watch.answered(7, false, 8_000 * MS)).isFalse(); // 8 s now
        assertThat(watch.answered(7, false, 16_000 * MS)).isTrue();
        assertThat(watch.answered(7, false, 17_000 * MS)).isFalse(); // at most 8 times the first: 16 s
        assertThat(watch.answered(7, false, 33_000 * MS)).isTrue();
        assertThat(watch.answered(7, false, 34_000 * MS)).isFalse();
        assertThat(watch.answered(7, false, 49_999 * MS)).isFalse();
        assertThat(watch.answered(7, false, 50_000 * MS)).isTrue();
    }

    @Test
    void curatorConnectedAgainRestoresTheFirstPatience() {
        watch.answered(7, false, 0);
        assertThat(watch.answered(7, false, 2_000 * MS)).isTrue();
        watch.answered(8, true, 2_500 * MS);
        assertThat(watch.answered(8, false, 3_000 * MS)).isFalse();
        assertThat(watch.answered(8, false, 5_000 * MS)).isTrue();
    }

    @Test
    void curatorConnectedInBetweenStartsTheWatchAgain() {
        watch.answered(7, false, 0);
        watch.answered(7, true, 1_000 * MS);
        assertThat(watch.answered(7, false, 2_500 * MS)).isFalse();
        assertThat(watch.answered(7, false, 4_499 * MS)).isFalse();
        assertThat(watch.answered(7, false, 4_500 * MS)).isTrue();
    }

    @Test
    void aFailedRequestMeansARealOutageWhichCuratorFollowsByItself() {
        watch.answered(7, false, 0);
        watch.failed();
        assertThat(watch.answered(7, false, 2_000 * MS)).isFalse();
        assertThat(watch.answered(7, false, 3_999 * MS)).isFalse();
        assertThat(watch.answered(7, false, 4_000 * MS)).isTrue();
    }

    @Test
    void aNewSessionIsWatchedFromItsFirstAnswer() {
        watch.answered(7, false, 0);
        assertThat(watch.answered(8, false, 2_000 * MS)).isFalse();
        assertThat(watch.answered(8, false, 4_000 * MS)).isTrue();
    }

    @Test
    void neverWhileCuratorIsConnected() {
        for (long t = 0; t <= 10_000; t += 500) {
            assertThat(watch.answered(7, true, t * MS)).isFalse();
        }
    }
}
