package dev.hourglass.node.background;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.node.testing.ManualClock;
import dev.hourglass.node.testing.ManualScheduler;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LifecycleTest {

    @Test
    void aPartStartsOnceAndNeverAfterItsClose() {
        Lifecycle lifecycle = new Lifecycle("part");
        lifecycle.start();
        assertThatThrownBy(lifecycle::start).hasMessageContaining("part cannot be started: it is STARTED");
        assertThat(lifecycle.close()).isTrue();
        assertThat(lifecycle.close()).as("closing twice is harmless").isFalse();
        assertThatThrownBy(lifecycle::start).hasMessageContaining("it is CLOSED");
    }

    @Test
    void aThreadedSchedulerRefusesTasksBeforeItsStartAndDropsThemAfterItsClose() {
        ThreadedScheduler scheduler = new ThreadedScheduler("test-scheduler", 1, Clock.systemUTC());
        assertThatThrownBy(() -> scheduler.execute(() -> {})).hasMessageContaining("not started");
        scheduler.start();
        assertThatThrownBy(scheduler::start).isInstanceOf(IllegalStateException.class);
        scheduler.close(1_000);
        scheduler.execute(() -> {
            throw new AssertionError("ran after the close");
        });
    }

    @Test
    void aPeriodicTaskRunsAgainAfterAFailureAndStopsWhenCanceled() {
        ManualScheduler scheduler = new ManualScheduler(new ManualClock(0));
        List<Long> runs = new ArrayList<>();
        TaskScheduler.Scheduled plan = PeriodicTask.every(
                scheduler,
                new PeriodicTask() {
                    @Override
                    public String name() {
                        return "test task";
                    }

                    @Override
                    public void run() {
                        runs.add(scheduler.now());
                        if (runs.size() == 2) {
                            throw new IllegalStateException("one bad run");
                        }
                    }
                },
                100,
                1_000);
        scheduler.advanceTo(3_100);
        assertThat(runs).containsExactly(100L, 1_100L, 2_100L, 3_100L);
        plan.cancel();
        scheduler.advanceTo(10_000);
        assertThat(runs).hasSize(4);
        assertThat(scheduler.failures())
                .as("the task's failure is the wrapper's to log")
                .isEmpty();
    }
}
