package dev.hourglass.node.background;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.node.testing.ManualClock;
import dev.hourglass.node.testing.ManualScheduler;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The batch loop of the result writer and the send fence, on fake time. */
class BatchLoopTest {
    private final ManualScheduler scheduler = new ManualScheduler(new ManualClock(1_000_000));
    private final List<List<Integer>> handled = new ArrayList<>();

    @Test
    void requestsOfTheLingerGoInOneBatchAndAFullBatchGoesAtOnce() {
        BatchLoop<Integer> loop = new BatchLoop<>("test", scheduler, 3, 10, handled::add);
        loop.add(1);
        scheduler.advance(5);
        loop.add(2);
        assertThat(handled).as("nothing before the linger has passed").isEmpty();
        scheduler.advance(5);
        assertThat(handled).containsExactly(List.of(1, 2));

        for (int i = 3; i <= 9; i++) {
            loop.add(i);
        }
        scheduler.advance(10); // the first batch after the linger, the next full one at once
        assertThat(handled).containsExactly(List.of(1, 2), List.of(3, 4, 5), List.of(6, 7, 8));
        scheduler.advance(10); // one left over: it lingers for company
        assertThat(handled).containsExactly(List.of(1, 2), List.of(3, 4, 5), List.of(6, 7, 8), List.of(9));
        assertThat(loop.isIdle()).isTrue();
    }

    @Test
    void aBatchTheHandlerCannotTakeNowIsHandedAgainAfterItsDelayAndNothingOvertakesIt() {
        AtomicInteger refusals = new AtomicInteger(2);
        BatchLoop<Integer> loop = new BatchLoop<>("test", scheduler, 10, 0, batch -> {
            if (refusals.getAndDecrement() > 0) {
                throw new BatchLoop.RetryLater(1_000);
            }
            handled.add(batch);
        });
        loop.add(1);
        scheduler.runDue();
        loop.add(2);
        scheduler.advance(999);
        assertThat(handled).isEmpty();
        scheduler.advance(1_001);
        assertThat(handled).as("the same batch, then what came meanwhile").containsExactly(List.of(1), List.of(2));
    }

    @Test
    void aHandlerThatThrowsLosesItsBatchButTheLoopGoesOn() {
        BatchLoop<Integer> loop = new BatchLoop<>("test", scheduler, 10, 0, batch -> {
            if (batch.contains(1)) {
                throw new AssertionError("a defect");
            }
            handled.add(batch);
        });
        loop.add(1);
        scheduler.runDue();
        loop.add(2);
        scheduler.runDue();
        assertThat(handled).containsExactly(List.of(2));
        assertThat(loop.isIdle()).isTrue();
    }

    @Test
    void finishHandlesWhatIsQueuedWithoutTheLingerAndSaysWhetherItCould() {
        BatchLoop<Integer> loop = new BatchLoop<>("test", scheduler, 10, 60_000, handled::add);
        loop.add(1);
        long before = scheduler.now();
        assertThat(loop.finish(100)).isTrue();
        assertThat(handled).containsExactly(List.of(1));
        assertThat(scheduler.now() - before).as("no linger once finishing").isLessThan(100);

        BatchLoop<Integer> refusing = new BatchLoop<>("test", scheduler, 10, 0, batch -> {
            throw new BatchLoop.RetryLater(1_000);
        });
        refusing.add(1);
        assertThat(refusing.finish(2_500))
                .as("the database never came back within the wait")
                .isFalse();
    }

    @Test
    void aLoopWhoseSchedulerRefusesIsNotLeftArmed() {
        ThreadedScheduler notStarted = new ThreadedScheduler("test", 1, Clock.systemUTC());
        BatchLoop<Integer> loop = new BatchLoop<>("test", notStarted, 10, 0, handled::add);
        assertThatThrownBy(() -> loop.add(1)).isInstanceOf(IllegalStateException.class);
        assertThat(loop.isIdle())
                .as("queued, but not armed: the next add plans a run")
                .isFalse();
        assertThatThrownBy(() -> loop.add(2)).as("it tries again").isInstanceOf(IllegalStateException.class);
    }
}
