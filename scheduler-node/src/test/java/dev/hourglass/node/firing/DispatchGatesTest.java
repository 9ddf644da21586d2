package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.service.RateShare;
import dev.hourglass.node.testing.ManualClock;
import dev.hourglass.node.testing.ManualScheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DispatchGatesTest {
    private final ManualScheduler timer = new ManualScheduler(new ManualClock(1_000_000));
    private final List<Long> admittedAt = new ArrayList<>();
    private final List<PendingSend> admitted = new ArrayList<>();
    private final DispatchGates gates = new DispatchGates(
            send -> {
                admitted.add(send);
                admittedAt.add(timer.now());
            },
            timer);

    private static PendingSend send(long id) {
        return new PendingSend(FakeJobStore.job(id, JobState.RUNNING, 0, 0, 1, 5, "n", 5_000, 0), 0);
    }

    @Test
    void aRateLimitedGateLetsTheBurstGoAtOnceAndTheRestAtTheRateInOrder() {
        RateShare rate = new RateShare(10, 3);
        for (long id = 1; id <= 10; id++) {
            gates.submit(send(id), 100, rate);
        }
        assertThat(admitted).hasSize(3);
        timer.advance(1_000);
        assertThat(admitted).as("the burst, then 10 a second").hasSize(10);
        assertThat(admitted.stream().map(s -> s.job().id()).toList())
                .as("in the order they came")
                .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        for (int i = 4; i < admittedAt.size(); i++) {
            assertThat(admittedAt.get(i) - admittedAt.get(i - 1)).isEqualTo(100);
        }
    }

    @Test
    void aSlotAndATokenAreBothNeeded() {
        RateShare rate = new RateShare(1_000, 100);
        for (long id = 1; id <= 5; id++) {
            gates.submit(send(id), 2, rate);
        }
        assertThat(admitted).as("two slots").hasSize(2);
        timer.advance(500);
        assertThat(admitted).as("tokens do not free slots").hasSize(2);
        gates.release("app/svc");
        assertThat(admitted).hasSize(3);
        assertThat(gates.running()).containsEntry("app/svc", 2);
    }

    @Test
    void aLimitRaisedLetsTheWaitingStartWithoutWaitingForAnEnd() {
        for (long id = 1; id <= 4; id++) {
            gates.submit(send(id), 1, null);
        }
        assertThat(admitted).hasSize(1);
        gates.submit(send(5), 10, null);
        assertThat(admitted).as("every waiting one, then the new one, in order").hasSize(5);
        assertThat(admitted.get(4).job().id()).isEqualTo(5L);
    }

    @Test
    void admissionsThatEndAtOnceDoNotRecurseThroughAQueueOfThousands() {
        List<PendingSend> sent = new ArrayList<>();
        boolean[] dropping = {false};
        DispatchGates[] self = new DispatchGates[1];
        self[0] = new DispatchGates(
                send -> {
                    if (dropping[0]) { // given back at its admission (its service paused): frees its slot
                        self[0].release(send.job().serviceKey());
                    } else {
                        sent.add(send);
                    }
                },
                timer);
        self[0].submit(send(0), 1, null);
        for (long id = 1; id <= 100_000; id++) {
            self[0].submit(send(id), 1, null);
        }
        assertThat(sent).hasSize(1);
        dropping[0] = true;
        self[0].release("app/svc"); // the one under way ends: each waiting one is admitted and drops
        assertThat(self[0].running())
                .as("every slot given back, no stack overflow")
                .isEmpty();
        dropping[0] = false;
        self[0].submit(send(200_000), 1, null);
        assertThat(sent).hasSize(2);
    }
}
