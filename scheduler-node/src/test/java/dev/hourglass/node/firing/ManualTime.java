package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.testing.ManualClock;
import dev.hourglass.node.testing.ManualScheduler;
import java.util.function.BooleanSupplier;

/**
 * The fake time of an engine test: one clock, one scheduler for every role of the engine, and the
 * exceptions the engine caught and logged on the way. {@link #stopAndCheck} is the end of every
 * engine test: the engine stopped, no task threw, nothing was caught and logged.
 */
final class ManualTime {
    final ManualClock clock = new ManualClock(FiringEngineFenceTest.T0);
    final ManualScheduler scheduler = new ManualScheduler(clock);
    final LoggedDefects defects = LoggedDefects.capture();

    EngineSchedulers schedulers() {
        return EngineSchedulers.allOn(scheduler);
    }

    /** Moves fake time, task by task, until {@code done} holds; fails if it does not within {@code maxMs}. */
    void runUntil(String what, BooleanSupplier done, long maxMs) {
        assertThat(scheduler.awaitUntil(done, maxMs))
                .as("%s within %d ms of fake time", what, maxMs)
                .isTrue();
    }

    void stopAndCheck(FiringEngine engine) {
        try {
            if (engine != null) {
                engine.stop(1_000);
            }
            assertThat(scheduler.failures()).as("tasks that threw").isEmpty();
            assertThat(defects.logged())
                    .as("exceptions the engine caught and logged")
                    .isEmpty();
        } finally {
            defects.close();
        }
    }
}
