package dev.hourglass.node.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.core.cluster.Assignment;
import dev.hourglass.node.core.cluster.Member;
import dev.hourglass.node.core.port.Coordination;
import dev.hourglass.node.core.port.RetentionListener;
import dev.hourglass.node.core.port.RetentionStore;
import dev.hourglass.node.testing.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The sweep's rules with an in-memory store, a fake cluster view and a manual clock. */
class RetentionSweepTest {
    private static final long DAY = RetentionSettings.DAY_MS;
    private static final long NOW = 1_800_000_000_000L;

    private final ManualClock clock = new ManualClock(NOW);
    private final FakeCluster cluster = new FakeCluster();
    private final FakeStore store = new FakeStore();
    private final List<String> heard = new ArrayList<>();

    private RetentionSweep sweep(int batchSize, int maxBatches) {
        return new RetentionSweep(
                store,
                clock,
                new RetentionSettings(7 * DAY, 30 * DAY, 60_000, batchSize, 0, maxBatches),
                cluster,
                new RetentionListener() {
                    @Override
                    public void deleted(String table, int rows) {
                        heard.add(table + "=" + rows);
                    }

                    @Override
                    public void ran(long nanos) {}
                });
    }

    @Test
    void onlyTheMasterDeletes() {
        store.executionsFinishedAt(NOW - 8 * DAY, 5);
        store.jobsEndedAt(NOW - 31 * DAY, 5);
        cluster.master = "another-node";
        RetentionSweep.Run run = sweep(10, 10).runOnce();
        assertThat(run.executions() + run.jobs()).isZero();
        assertThat(store.calls)
                .as("a node that is not the master does not even look")
                .isEmpty();

        cluster.master = "me";
        cluster.connected = false;
        assertThat(sweep(10, 10).runOnce().executions()).isZero();
        assertThat(store.calls)
                .as("nor does a master whose ZooKeeper session is not connected")
                .isEmpty();

        cluster.connected = true;
        run = sweep(10, 10).runOnce();
        assertThat(run.executions()).isEqualTo(5);
        assertThat(run.jobs()).isEqualTo(5);
    }

    @Test
    void noMasterElectedMeansNobodyDeletes() {
        store.executionsFinishedAt(NOW - 8 * DAY, 5);
        cluster.master = null;
        assertThat(sweep(10, 10).runOnce().executions()).isZero();
        assertThat(store.calls).isEmpty();
    }

    @Test
    void onlyWhatIsOlderThanTheRetentionGoes() {
        store.executionsFinishedAt(NOW - 7 * DAY - 1, 3);
        store.executionsFinishedAt(NOW - 7 * DAY, 2); // exactly at the cutoff: kept
        store.executionsFinishedAt(NOW - DAY, 4);
        store.jobsEndedAt(NOW - 30 * DAY - 1, 2);
        store.jobsEndedAt(NOW - 29 * DAY, 6);
        RetentionSweep.Run run = sweep(100, 10).runOnce();
        assertThat(run.executions()).isEqualTo(3);
        assertThat(run.jobs()).isEqualTo(2);
        assertThat(store.executionTimes).hasSize(6).allMatch(t -> t >= NOW - 7 * DAY);
        assertThat(store.jobTimes).hasSize(6).allMatch(t -> t >= NOW - 30 * DAY);
        assertThat(store.calls).contains("executions<" + (NOW - 7 * DAY), "jobs<" + (NOW - 30 * DAY));
    }

    @Test
    void batchesAreBoundedAndARunEndsWhenCaughtUp() {
        store.executionsFinishedAt(NOW - 10 * DAY, 25);
        RetentionSweep.Run run = sweep(10, 100).runOnce();
        assertThat(run.executions()).isEqualTo(25);
        assertThat(run.executionBatches())
                .as("10 + 10 + 5: the short batch ends the run")
                .isEqualTo(3);
        assertThat(store.limits).allMatch(l -> l == 10);
        assertThat(heard)
                .containsSubsequence(
                        "job_delay_task_execlog=10", "job_delay_task_execlog=10", "job_delay_task_execlog=5");
    }

    @Test
    void aRunDoesAtMostItsBudgetAndTheNextGoesOn() {
        store.executionsFinishedAt(NOW - 10 * DAY, 95);
        RetentionSweep sweep = sweep(10, 4);
        RetentionSweep.Run first = sweep.runOnce();
        assertThat(first.executionBatches()).isEqualTo(4);
        assertThat(first.executions()).isEqualTo(40);
        assertThat(store.executionTimes).hasSize(55);
        sweep.runOnce();
        assertThat(store.executionTimes).hasSize(15);
        assertThat(sweep.runOnce().executionBatches())
                .as("15 left: 10, then a short 5")
                .isEqualTo(2);
        assertThat(store.executionTimes).isEmpty();
    }

    @Test
    void aMasterThatLosesItsRoleStopsBetweenBatches() {
        store.executionsFinishedAt(NOW - 10 * DAY, 50);
        store.afterEachCall = () -> {
            if (store.calls.stream().filter(c -> c.startsWith("executions")).count() == 2) {
                cluster.master = "the-new-master";
            }
        };
        RetentionSweep.Run run = sweep(10, 100).runOnce();
        assertThat(run.executions()).isEqualTo(20);
        assertThat(store.executionTimes).hasSize(30);
    }

    @Test
    void zeroDaysKeepsATableForEver() {
        store.executionsFinishedAt(NOW - 1_000 * DAY, 5);
        store.jobsEndedAt(NOW - 1_000 * DAY, 5);
        var keepLog = new RetentionSweep(
                store, clock, new RetentionSettings(0, 30 * DAY, 60_000, 10, 0, 10), cluster, RetentionListener.NONE);
        RetentionSweep.Run run = keepLog.runOnce();
        assertThat(run.executions()).isZero();
        assertThat(run.jobs()).isEqualTo(5);
        assertThat(store.calls).noneMatch(c -> c.startsWith("executions"));
    }

    @Test
    void theBacklogsJobsCountTheirAttemptsAndKeysToo() {
        store.jobsEndedAt(NOW - 40 * DAY, 3);
        sweep(10, 10).runOnce();
        assertThat(heard).contains("job_delay_task_backlog=3", "job_delay_task_execlog=6", "hg_biz_key=3");
    }

    /** Rows as their finish or end times; deletes the oldest first, like the real store. */
    static final class FakeStore implements RetentionStore {
        final List<Long> executionTimes = new ArrayList<>();
        final List<Long> jobTimes = new ArrayList<>();
        final List<String> calls = new ArrayList<>();
        final List<Integer> limits = new ArrayList<>();
        Runnable afterEachCall = () -> {};

        void executionsFinishedAt(long at, int n) {
            for (int i = 0; i < n; i++) {
                executionTimes.add(at);
            }
        }

        void jobsEndedAt(long at, int n) {
            for (int i = 0; i < n; i++) {
                jobTimes.add(at);
            }
        }

        @Override
        public int deleteExecutionsFinishedBefore(long cutoff, int limit) {
            calls.add("executions<" + cutoff);
            limits.add(limit);
            int n = deleteOldest(executionTimes, cutoff, limit);
            afterEachCall.run();
            return n;
        }

        @Override
        public Purged deleteFinalJobsEndedBefore(long cutoff, int limit) {
            calls.add("jobs<" + cutoff);
            limits.add(limit);
            int n = deleteOldest(jobTimes, cutoff, limit);
            afterEachCall.run();
            return new Purged(n, 2 * n, n);
        }

        private static int deleteOldest(List<Long> times, long cutoff, int limit) {
            times.sort(Long::compare);
            int n = 0;
            while (n < limit && !times.isEmpty() && times.get(0) < cutoff) {
                times.remove(0);
                n++;
            }
            return n;
        }
    }

    static final class FakeCluster implements Coordination {
        volatile String master = "me";
        volatile boolean connected = true;

        @Override
        public List<Member> members() {
            return List.of();
        }

        @Override
        public Assignment assignment() {
            Map<String, List<Integer>> none = new TreeMap<>();
            return new Assignment(1, master, none);
        }

        @Override
        public String master() {
            return master;
        }

        @Override
        public boolean isConnected() {
            return connected;
        }

        @Override
        public boolean isMaster() {
            return connected && "me".equals(master);
        }
    }
}
