package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptEndings;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.testing.ManualClock;
import dev.hourglass.node.testing.ManualScheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What follows a written result (back into memory, the listeners) follows only the results that
 * ended their attempt: a TIMEOUT of an attempt answered meanwhile changed nothing, and counting it
 * as a lapsed reservation or waking waiters for it would be wrong.
 */
class OutcomeWriterTest {
    static final long T0 = 1_800_000_000_000L;

    @Test
    void onlyTheResultsThatEndedTheirAttemptAreHandedOn() {
        ManualClock clock = new ManualClock(T0);
        ManualScheduler time = new ManualScheduler(clock);
        FakeJobStore store = new FakeJobStore();
        Job current = FakeJobStore.job(1, JobState.RUNNING, T0, T0 + 5_000, 2, 5, "n1", 5_000, 0);
        Job answered = FakeJobStore.job(2, JobState.FINISHED, T0, T0, 1, 5, "n1", 5_000, 0);
        store.jobs.put(1L, current);
        store.jobs.put(2L, answered);
        List<AttemptResult> handedOn = new ArrayList<>();
        OutcomeWriter writer = new OutcomeWriter(store, time, clock, 10, 0, handedOn::addAll, FiringListener.NONE);
        AttemptResult applies =
                AttemptEndings.reported(current, AttemptOutcome.SUCCESS, null, null, Backoff.DEFAULT, T0 + 10);
        AttemptResult stale = AttemptEndings.timedOut(
                FakeJobStore.job(2, JobState.RUNNING, T0, T0, 1, 5, "n1", 5_000, 0), Backoff.DEFAULT, T0 + 10);
        writer.submit(applies);
        writer.submit(stale);
        time.runDue();
        assertThat(store.results).as("both were written").hasSize(2);
        assertThat(handedOn).extracting(AttemptResult::jobId).containsExactly(1L);
    }
}
