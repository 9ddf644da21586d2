package dev.hourglass.sdk.pull;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WorkSlotsTest {
    @Test
    void takesNoMoreThanIsFreeNorThanAsked() throws Exception {
        WorkSlots slots = new WorkSlots(3);

        assertThat(slots.take(2)).isEqualTo(2);
        assertThat(slots.take(5)).isEqualTo(1);
        slots.give(2);
        assertThat(slots.take(5)).isEqualTo(2);
    }

    @Test
    void waitsForAFreeSlotAndEndsWithZeroOnceClosed() throws Exception {
        WorkSlots slots = new WorkSlots(1);
        assertThat(slots.take(1)).isEqualTo(1);

        CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> takeQuietly(slots));
        slots.give(1);
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo(1);

        CompletableFuture<Integer> closedWhileWaiting = CompletableFuture.supplyAsync(() -> takeQuietly(slots));
        slots.close();
        assertThat(closedWhileWaiting.get(5, TimeUnit.SECONDS)).isZero();
        slots.give(1);
        assertThat(slots.take(1)).as("closed for good").isZero();
        assertThat(slots.awaitClosed(TimeUnit.SECONDS.toNanos(5))).isTrue();
    }

    @Test
    void aNodeAnsweringMoreThanAskedTakesSlotsAhead() throws Exception {
        WorkSlots slots = new WorkSlots(2);
        int taken = slots.take(2);
        slots.give(taken - 3); // 3 reservations for 2 slots: one slot owed

        slots.give(2); // two handlers end: one slot still owed
        assertThat(slots.take(2)).isEqualTo(1);
    }

    private static int takeQuietly(WorkSlots slots) {
        try {
            return slots.take(1);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
