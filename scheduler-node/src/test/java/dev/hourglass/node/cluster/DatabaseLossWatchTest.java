package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DatabaseLossWatchTest {
    final AtomicLong now = new AtomicLong(0);
    final AtomicBoolean answers = new AtomicBoolean(false);
    final List<String> steps = new CopyOnWriteArrayList<>();
    final HeldProbes probes = new HeldProbes();
    final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    final DatabaseLossWatch watch = new DatabaseLossWatch(
            answers::get,
            new DatabaseLossWatch.Stance() {
                @Override
                public void stepBack(String why) {
                    steps.add("back: " + why);
                }

                @Override
                public void stepForward() {
                    steps.add("forward");
                }
            },
            now::get,
            10_000,
            scheduler,
            probes);

    @AfterEach
    void close() {
        watch.close();
    }

    @Test
    void stepsBackAfterTheSilenceAndForwardAtTheFirstAnswer() throws Exception {
        tickAt(1_000);
        probeAnswers(false);
        tickAt(9_999);
        probeAnswers(false);
        assertThat(steps).as("not yet: 9,999 ms without an answer").isEmpty();

        tickAt(10_000);
        assertThat(steps).containsExactly("back: no answer from the database for 10000 ms");
        probeAnswers(false);
        tickAt(20_000);
        assertThat(steps).as("once").hasSize(1);

        answers.set(true);
        probeAnswers(true);
        assertThat(steps).containsExactly("back: no answer from the database for 10000 ms", "forward");
        tickAt(21_000);
        probeAnswers(true);
        assertThat(steps).as("forward once").hasSize(2);
    }

    @Test
    void aProbeThatHangsIsNotJoinedByMoreAndTheSilenceStillCounts() throws Exception {
        tickAt(1_000);
        tickAt(2_000);
        tickAt(5_000);
        assertThat(probes.held).as("one probe out at a time").hasSize(1);
        tickAt(11_000);
        assertThat(steps).containsExactly("back: no answer from the database for 11000 ms");
    }

    @Test
    void answersKeepTheNodeWhereItIs() throws Exception {
        answers.set(true);
        for (long t = 1_000; t <= 60_000; t += 1_000) {
            tickAt(t);
            probeAnswers(true);
        }
        assertThat(steps).isEmpty();
    }

    private void tickAt(long millis) throws Exception {
        now.set(millis);
        scheduler.submit(watch::tick).get(5, TimeUnit.SECONDS);
    }

    /** Runs the probe that is out, then lets its answer reach the watch. */
    private void probeAnswers(boolean answered) throws Exception {
        answers.set(answered);
        assertThat(probes.held).as("a probe out").hasSize(1);
        probes.held.remove(0).run();
        scheduler.submit(() -> {}).get(5, TimeUnit.SECONDS); // the answer, posted to the scheduler, is in
    }

    /** Probes run when the test says so. */
    static final class HeldProbes extends AbstractExecutorService {
        final List<Runnable> held = new ArrayList<>();

        @Override
        public void execute(Runnable command) {
            held.add(command);
        }

        @Override
        public void shutdown() {}

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
