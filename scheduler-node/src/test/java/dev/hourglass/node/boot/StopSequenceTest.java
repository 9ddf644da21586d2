package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class StopSequenceTest {
    final CountDownLatch never = new CountDownLatch(1);
    final List<String> ran = new CopyOnWriteArrayList<>();

    @AfterEach
    void releaseAbandonedSteps() {
        never.countDown();
    }

    private void blockForever() {
        try {
            never.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aStepThatOverrunsIsAbandonedAtItsBoundAndTheNextRuns() {
        StopSequence stop = new StopSequence(LoggerFactory.getLogger(getClass()), 10_000);
        long start = System.nanoTime();
        assertThat(stop.step("stuck", 300, this::blockForever)).isFalse();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(tookMs).as("abandoned at its own bound").isBetween(300L, 2_000L);
        assertThat(stop.step("next", 1_000, () -> ran.add("next"))).isTrue();
        assertThat(ran).containsExactly("next");
    }

    @Test
    void aStepThatThrowsEndsAndTheNextRuns() {
        StopSequence stop = new StopSequence(LoggerFactory.getLogger(getClass()), 10_000);
        assertThat(stop.step("broken", 1_000, () -> {
                    throw new IllegalStateException("broken");
                }))
                .isTrue();
        assertThat(stop.step("next", 1_000, () -> ran.add("next"))).isTrue();
        assertThat(ran).containsExactly("next");
    }

    @Test
    void theDeadlineCutsAStepsOwnBoundButEveryStepStillGetsItsFloor() {
        StopSequence stop = new StopSequence(LoggerFactory.getLogger(getClass()), 400);
        long start = System.nanoTime();
        assertThat(stop.step("stuck", 5_000, this::blockForever)).isFalse();
        assertThat(stop.step("also stuck", 5_000, this::blockForever)).isFalse();
        assertThat(stop.step("quick", 5_000, () -> ran.add("quick"))).isTrue();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(tookMs)
                .as("the deadline (400 ms) and one floor (%d ms) for the late step", StopSequence.FLOOR_MS)
                .isBetween(400L + StopSequence.FLOOR_MS, 2_500L);
        assertThat(ran).containsExactly("quick");
    }
}
