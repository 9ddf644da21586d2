package dev.hourglass.sdk.pull;

import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for an asynchronous outcome, bounded; a poll every 5 ms (no Awaitility in this module). */
final class Await {
    private Await() {}

    static void until(String what, Duration max, BooleanSupplier condition) {
        long end = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("Not within " + max.toMillis() + " ms: " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("Interrupted waiting for: " + what);
            }
        }
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, Duration.ofSeconds(5), condition);
    }
}
