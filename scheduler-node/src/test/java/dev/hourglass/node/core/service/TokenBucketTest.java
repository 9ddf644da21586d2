package dev.hourglass.node.core.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void startsFullThenGivesTheRateAndNeverMoreThanTheCapacity() {
        TokenBucket b = new TokenBucket(10, 3, 0);
        assertThat(b.take(100, 0)).as("the burst at once").isEqualTo(3);
        assertThat(b.tryTake(0)).isFalse();
        assertThat(b.nanosUntilToken(0)).isEqualTo(SECOND / 10);
        assertThat(b.tryTake(SECOND / 10 - 1)).isFalse();
        assertThat(b.tryTake(SECOND / 10)).isTrue();
        // idle for a minute: it holds its capacity, not a minute's worth
        assertThat(b.take(1_000, 60 * SECOND)).isEqualTo(3);
    }

    @Test
    void overAnyIntervalAtMostCapacityPlusRateTimesItsLengthStart() {
        Random random = new Random(7);
        TokenBucket b = new TokenBucket(50, 5, 0);
        long[] starts = new long[5_000];
        int n = 0;
        long now = 0;
        while (n < starts.length) {
            now += random.nextInt(30_000_000); // asks at random moments, up to 30 ms apart
            int got = b.take(1 + random.nextInt(4), now);
            for (int i = 0; i < got && n < starts.length; i++) {
                starts[n++] = now;
            }
        }
        for (int i = 0; i < n; i++) {
            for (int j = i; j < n; j++) {
                double seconds = (starts[j] - starts[i]) / 1e9;
                assertThat(j - i + 1).isLessThanOrEqualTo((int) Math.floor(5 + 50 * seconds));
                if (seconds > 3) {
                    break;
                }
            }
        }
        double rate = n / (now / 1e9);
        assertThat(rate).as("and it does give the rate when asked often").isBetween(45.0, 52.0);
    }

    @Test
    void givenBackTokensAndANewRateKeepTheCapacity() {
        TokenBucket b = new TokenBucket(10, 4, 0);
        assertThat(b.take(4, 0)).isEqualTo(4);
        b.giveBack(10);
        assertThat(b.take(10, 0)).as("never above the capacity").isEqualTo(4);
        b.reconfigure(100, 2, 0);
        assertThat(b.nanosUntilToken(0)).isEqualTo(SECOND / 100);
        assertThat(b.take(10, SECOND)).isEqualTo(2);
        b.reconfigure(0, 1, SECOND);
        assertThat(b.nanosUntilToken(SECOND)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void sharesOfARateAddUpToItAndEachOwnerHasAWholeToken() {
        FlowControl.RateLimit limit = new FlowControl.RateLimit(200, 20);
        Map<String, Integer> shards = Map.of("a", 21, "b", 21, "c", 22);
        double rate = 0;
        double burst = 0;
        for (String node : shards.keySet()) {
            RateShare share =
                    RateShare.of(limit, l -> dev.hourglass.node.core.shard.LimitShares.shareOf(l, shards, node));
            rate += share.perSecond();
            burst += share.burst();
            assertThat(share.burst()).isGreaterThanOrEqualTo(1.0);
        }
        assertThat(rate).isCloseTo(200.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(burst).isCloseTo(20.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(RateShare.of(null, l -> l)).isNull();
        assertThat(RateShare.of(new FlowControl.RateLimit(2, 1), l -> l / 3).burst())
                .as("a share of a burst below one token is one")
                .isEqualTo(1.0);
    }

    @Test
    void aPauseKeepsJobsFromBeingOverdueAndTheResumeRestartsTheCount() {
        Pause never = Pause.NEVER;
        assertThat(never.overdueMs(1_000, 5_000)).isEqualTo(4_000);
        Pause paused = new Pause(2_000L, "admin", null);
        assertThat(paused.overdueMs(1_000, 60_000)).isZero();
        Pause resumed = new Pause(null, null, 50_000L);
        assertThat(resumed.overdueMs(1_000, 60_000)).as("from the resume").isEqualTo(10_000);
        assertThat(resumed.overdueMs(55_000, 60_000))
                .as("from its fire time, later")
                .isEqualTo(5_000);
    }
}
