package dev.hourglass.node.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.testing.ManualClock;
import org.junit.jupiter.api.Test;

/** The limiter on a manual clock: the worked examples of its class comment, and its bounds. */
class FailedAuthLimiterTest {
    final ManualClock clock = new ManualClock(0);
    final FailedAuthLimiter limiter =
            new FailedAuthLimiter(new FailedAuthLimiter.Limits(3, 60_000, 60_000, 1_000), clock);

    @Test
    void theFailureThatReachesTheLimitBlocksTheAddressForTheBlockTime() {
        failAt(0, "a");
        failAt(10_000, "a");
        assertThat(limiter.blockedForMs("a")).isZero();
        failAt(20_000, "a");
        assertThat(limiter.blockedForMs("a")).isEqualTo(60_000);
        clock.set(30_000);
        assertThat(limiter.blockedForMs("a")).isEqualTo(50_000);
        assertThat(limiter.blockedForMs("b")).as("another address").isZero();
        clock.set(79_999);
        assertThat(limiter.blockedForMs("a")).isEqualTo(1);
        clock.set(80_000);
        assertThat(limiter.blockedForMs("a")).isZero();
        // the count started afresh with the block's end
        failAt(80_000, "a");
        failAt(81_000, "a");
        assertThat(limiter.blockedForMs("a")).isZero();
    }

    @Test
    void failuresInDifferentWindowsNeverBlock() {
        failAt(0, "a");
        failAt(10_000, "a");
        failAt(61_000, "a"); // opens a new window: 1 failure in it
        failAt(62_000, "a");
        assertThat(limiter.blockedForMs("a")).isZero();
        failAt(63_000, "a");
        assertThat(limiter.blockedForMs("a")).isEqualTo(60_000);
    }

    @Test
    void aWrongTokenRepeatedFromAnAddressCountsOncePerWindow() {
        failAt(0, "a", "token-A");
        failAt(10_000, "a", "token-B");
        failAt(15_000, "a", "token-A"); // a repeat: not counted
        assertThat(limiter.blockedForMs("a")).isZero();
        failAt(20_000, "a", "token-C");
        assertThat(limiter.blockedForMs("a"))
                .as("A, B, C: three distinct tokens")
                .isEqualTo(60_000);
        clock.set(30_000);
        assertThat(limiter.blockedForMs("a")).isEqualTo(50_000);
    }

    @Test
    void aClientStuckOnOneWrongTokenNeverBlocksItsAddress() {
        for (int i = 0; i < 1_000; i++) {
            failAt(i * 1_000L, "a", "revoked-token"); // 1,000 s: about 17 windows
        }
        assertThat(limiter.blockedForMs("a")).isZero();
        failAt(1_000_000, "a", "token-B");
        failAt(1_000_001, "a", "token-C");
        assertThat(limiter.blockedForMs("a"))
                .as("the stuck token counted once in this window, with B and C: three")
                .isEqualTo(60_000);
    }

    @Test
    void aRepeatedTokenCountsAgainInANewWindowAndFromAnotherAddress() {
        failAt(0, "a", "token-A");
        failAt(61_000, "a", "token-A"); // a new window: counted again
        failAt(62_000, "a", "token-B");
        assertThat(limiter.blockedForMs("a")).isZero();
        failAt(63_000, "a", "token-A"); // a repeat within the new window
        assertThat(limiter.blockedForMs("a")).isZero();
        failAt(64_000, "a", "token-C");
        assertThat(limiter.blockedForMs("a")).isEqualTo(60_000);

        failAt(64_000, "b", "token-A");
        failAt(64_000, "b", "token-B");
        assertThat(limiter.blockedForMs("b")).as("b's own count: two").isZero();
    }

    @Test
    void failuresDuringABlockAreNotCounted() {
        failAt(0, "a");
        failAt(1_000, "a");
        failAt(2_000, "a"); // blocked until 62 s
        for (long at = 3_000; at < 62_000; at += 1_000) {
            failAt(at, "a");
        }
        clock.set(62_000);
        assertThat(limiter.blockedForMs("a")).as("not extended").isZero();
        failAt(62_000, "a");
        failAt(63_000, "a");
        assertThat(limiter.blockedForMs("a"))
                .as("the count started afresh: two")
                .isZero();
    }

    @Test
    void zeroMaxFailuresTurnsTheLimitOff() {
        FailedAuthLimiter off = new FailedAuthLimiter(new FailedAuthLimiter.Limits(0, 60_000, 60_000, 100), clock);
        for (int i = 0; i < 1_000; i++) {
            off.recordFailure("a");
        }
        assertThat(off.blockedForMs("a")).isZero();
    }

    @Test
    void memoryIsBoundedByTheNumberOfAddresses() {
        FailedAuthLimiter small = new FailedAuthLimiter(new FailedAuthLimiter.Limits(3, 60_000, 60_000, 100), clock);
        for (int i = 0; i < 10_000; i++) {
            small.recordFailure("10.0." + (i / 256) + "." + (i % 256));
        }
        assertThat(small.trackedAddresses()).isLessThanOrEqualTo(100);
    }

    @Test
    void anAddressIsForgottenOnceItsWindowAndBlockAreOver() {
        failAt(0, "a");
        assertThat(limiter.trackedAddresses()).isEqualTo(1);
        clock.set(60_000);
        assertThat(limiter.trackedAddresses()).isZero();
    }

    private void failAt(long at, String address) {
        clock.set(at);
        limiter.recordFailure(address);
    }

    private void failAt(long at, String address, String tokenHash) {
        clock.set(at);
        limiter.recordFailure(address, tokenHash);
    }
}
