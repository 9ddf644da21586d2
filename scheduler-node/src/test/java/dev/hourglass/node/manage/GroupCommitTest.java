package dev.hourglass.node.manage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.JobWrites.Inserted;
import dev.hourglass.node.core.port.StoreContendedException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit against a fake store: callers queued while a commit is under way are stored in the
 * next transaction together, each answered with its own job; a failed transaction fails exactly
 * its callers; a job the store refuses, or one that waited on another transaction's lock past the
 * timeout, fails only its own caller.
 */
class GroupCommitTest {
    /** What the fake store was asked to write, one list per transaction, and what it committed. */
    final List<List<Long>> transactions = new CopyOnWriteArrayList<>();

    final List<Long> committed = new CopyOnWriteArrayList<>();
    final CountDownLatch firstEntered = new CountDownLatch(1);
    final CountDownLatch releaseFirst = new CountDownLatch(1);
    final ExecutorService callers = Executors.newCachedThreadPool();
    GroupCommit<Job, Inserted> groups;

    @AfterEach
    void stop() {
        releaseFirst.countDown();
        if (groups != null) {
            groups.close();
        }
        callers.shutdownNow();
    }

    private static Job job(long id) {
        return job(id, null);
    }

    private static Job job(long id, String bizKey) {
        return new Job(
                id,
                "app",
                "svc",
                bizKey,
                0,
                JobState.DELAYED,
                1_000,
                1_000,
                null,
                0,
                0,
                5,
                5_000,
                null,
                "{}",
                Map.of(),
                null,
                null,
                0,
                0,
                0);
    }

    /** Holds its first transaction until released; then applies {@code rule} to each one. */
    private Function<List<Job>, List<Inserted>> store(Function<List<Job>, RuntimeException> rule) {
        return batch -> {
            transactions.add(batch.stream().map(Job::id).toList());
            if (transactions.size() == 1) {
                firstEntered.countDown();
                try {
                    releaseFirst.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            RuntimeException failure = rule.apply(batch);
            if (failure != null) {
                throw failure; // all or nothing: nothing of this transaction is committed
            }
            batch.forEach(j -> committed.add(j.id()));
            return batch.stream().map(j -> new Inserted(j, true)).toList();
        };
    }

    private CompletableFuture<Inserted> submit(long id) {
        // jobs from 100 on have a bizKey (a group that times out on a lock is retried by key)
        return CompletableFuture.supplyAsync(() -> groups.write(job(id, id >= 100 ? "key-" + id : null)), callers);
    }

    /** One caller's commit under way, then {@code ids} queued behind it. */
    private List<CompletableFuture<Inserted>> queuedBehindAFirstCommit(long... ids) throws InterruptedException {
        CompletableFuture<Inserted> first = submit(1);
        assertThat(firstEntered.await(5, TimeUnit.SECONDS)).isTrue();
        List<CompletableFuture<Inserted>> answers = new ArrayList<>(List.of(first));
        for (long id : ids) {
            answers.add(submit(id));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> groups.queued() == ids.length);
        releaseFirst.countDown();
        return answers;
    }

    @Test
    void submitsQueuedDuringACommitAreStoredInOneTransactionAndEachCallerGetsItsOwnJob() throws Exception {
        groups = GroupCommit.ofSubmits(store(batch -> null), new GroupCommit.Settings(1, 256))
                .start();
        long[] ids = new long[15];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = 100 + i;
        }
        List<CompletableFuture<Inserted>> answers = queuedBehindAFirstCommit(ids);
        for (int i = 0; i < answers.size(); i++) {
            long expected = i == 0 ? 1 : ids[i - 1];
            assertThat(answers.get(i).get(5, TimeUnit.SECONDS).job().id()).isEqualTo(expected);
        }
        assertThat(transactions).hasSize(2);
        assertThat(transactions.get(1)).hasSize(15);
    }

    @Test
    void aGroupIsAtMostMaxGroupJobs() throws Exception {
        groups = GroupCommit.ofSubmits(store(batch -> null), new GroupCommit.Settings(1, 4))
                .start();
        List<CompletableFuture<Inserted>> answers = queuedBehindAFirstCommit(2, 3, 4, 5, 6, 7, 8, 9, 10);
        for (CompletableFuture<Inserted> a : answers) {
            a.get(5, TimeUnit.SECONDS);
        }
        assertThat(transactions).allMatch(t -> t.size() <= 4);
        assertThat(committed).hasSize(10).doesNotHaveDuplicates();
    }

    @Test
    void aFailedCommitFailsExactlyTheCallersInIt() throws Exception {
        groups = GroupCommit.ofSubmits(
                        store(batch -> batch.stream().anyMatch(j -> j.id() >= 10 && j.id() < 20)
                                ? new StoreUnavailableException("connection lost", null)
                                : null),
                        new GroupCommit.Settings(1, 256))
                .start();
        List<CompletableFuture<Inserted>> answers = queuedBehindAFirstCommit(10, 11, 12, 13);
        assertThat(answers.get(0).get(5, TimeUnit.SECONDS).job().id()).isEqualTo(1);
        for (CompletableFuture<Inserted> failed : answers.subList(1, answers.size())) {
            assertThatThrownBy(() -> failed.get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(StoreUnavailableException.class);
        }
        assertThat(transactions)
                .as("the database is down: not tried job by job")
                .hasSize(2);
        assertThat(submit(20).get(5, TimeUnit.SECONDS).job().id())
                .as("the next submit is stored")
                .isEqualTo(20);
        assertThat(committed).containsExactly(1L, 20L);
    }

    @Test
    void aJobTheStoreRefusesFailsOnlyItsOwnCaller() throws Exception {
        groups = GroupCommit.ofSubmits(
                        store(batch -> batch.stream().anyMatch(j -> j.id() == 12)
                                ? new IllegalArgumentException("row of job 12 refused")
                                : null),
                        new GroupCommit.Settings(1, 256))
                .start();
        List<CompletableFuture<Inserted>> answers = queuedBehindAFirstCommit(10, 11, 12, 13);
        assertThatThrownBy(() -> answers.get(3).get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job 12");
        for (int i : new int[] {0, 1, 2, 4}) {
            answers.get(i).get(5, TimeUnit.SECONDS);
        }
        assertThat(transactions.get(1))
                .as("the group, refused as a whole")
                .containsExactlyInAnyOrder(10L, 11L, 12L, 13L);
        assertThat(committed).containsExactlyInAnyOrder(1L, 10L, 11L, 13L);
    }

    private static StoreContendedException lockTimeout() {
        return new StoreContendedException("lock wait: statement timed out", null);
    }

    @Test
    void aJobThatTimesOutOnALockFailsOnlyItsOwnCaller() throws Exception {
        // job 102's bizKey is held by another node's open transaction: every write with it waits
        // out the statement timeout; the database itself is up. Job 10 has no bizKey.
        groups = GroupCommit.ofSubmits(
                        store(batch -> batch.stream().anyMatch(j -> j.id() == 102) ? lockTimeout() : null),
                        new GroupCommit.Settings(1, 256))
                .start();
        List<CompletableFuture<Inserted>> answers = queuedBehindAFirstCommit(10, 101, 102, 103);
        assertThatThrownBy(() -> answers.get(3).get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(StoreContendedException.class);
        for (int i : new int[] {0, 1, 2, 4}) {
            answers.get(i).get(5, TimeUnit.SECONDS);
        }
        assertThat(committed).containsExactlyInAnyOrder(1L, 10L, 101L, 103L);
        assertThat(transactions.get(2))
                .as("the jobs without a bizKey together first")
                .containsExactly(10L);
        assertThat(transactions.subList(3, transactions.size()))
                .as("then each keyed job alone")
                .containsExactlyInAnyOrder(List.of(101L), List.of(102L), List.of(103L));
    }

    @Test
    void whenTheJobsWithoutABizKeyTimeOutTooTheServerIsStalledAndTheGroupFails() throws Exception {
        groups = GroupCommit.ofSubmits(
                        store(batch -> batch.stream().anyMatch(j -> j.id() != 1) ? lockTimeout() : null),
                        new GroupCommit.Settings(1, 256))
                .start();
        List<CompletableFuture<Inserted>> answers = queuedBehindAFirstCommit(10, 11, 101, 102);
        for (int i : new int[] {1, 2, 3, 4}) {
            assertThatThrownBy(() -> answers.get(i).get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(StoreContendedException.class);
        }
        assertThat(transactions)
                .as("the first, the group, the unkeyed part: no job alone")
                .hasSize(3);
    }

    @Test
    void theSingleWritesAfterALockTimeoutStopWhenTheirTimeIsSpent() throws Exception {
        groups = GroupCommit.ofSubmits(
                        store(batch -> batch.stream().anyMatch(j -> j.id() != 1) ? lockTimeout() : null),
                        new GroupCommit.Settings(1, 256),
                        0)
                .start();
        List<CompletableFuture<Inserted>> answers = queuedBehindAFirstCommit(101, 102, 103);
        for (int i : new int[] {1, 2, 3}) {
            assertThatThrownBy(() -> answers.get(i).get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(StoreContendedException.class);
        }
        assertThat(transactions)
                .as("the first, the group, one job alone: then the time was up")
                .hasSize(3);
    }

    @Test
    void writingOneByOneStopsAtADatabaseThatTurnsOutUnreachable() throws Exception {
        java.util.concurrent.atomic.AtomicInteger singles = new java.util.concurrent.atomic.AtomicInteger();
        groups = GroupCommit.ofSubmits(
                        store(batch -> batch.size() > 1 && batch.get(0).id() != 1
                                ? lockTimeout()
                                : batch.get(0).id() != 1 && singles.incrementAndGet() == 2
                                        ? new StoreUnavailableException("connection lost", null)
                                        : null), // the first single write goes through, the second finds the database
                        // gone
                        new GroupCommit.Settings(1, 256))
                .start();
        List<CompletableFuture<Inserted>> answers = queuedBehindAFirstCommit(101, 102, 103, 104);
        int stored = 0;
        int unavailable = 0;
        for (CompletableFuture<Inserted> a : answers.subList(1, answers.size())) {
            try {
                a.get(5, TimeUnit.SECONDS);
                stored++;
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(StoreUnavailableException.class);
                unavailable++;
            }
        }
        assertThat(stored).isEqualTo(1);
        assertThat(unavailable).isEqualTo(3);
        assertThat(transactions)
                .as("the first, the group, two jobs alone: the other two are not tried against a database that is down")
                .hasSize(4);
    }

    @Test
    void closeStoresWhatIsQueuedAndLaterSubmitsAreStoredAlone() throws Exception {
        groups = GroupCommit.ofSubmits(store(batch -> null), new GroupCommit.Settings(2, 256))
                .start();
        List<CompletableFuture<Inserted>> answers = new ArrayList<>();
        CompletableFuture<Inserted> first = submit(1);
        assertThat(firstEntered.await(5, TimeUnit.SECONDS)).isTrue();
        for (long id = 2; id <= 5; id++) {
            answers.add(submit(id));
        }
        CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> groups.close(5_000), callers);
        releaseFirst.countDown();
        closing.get(10, TimeUnit.SECONDS);
        first.get(5, TimeUnit.SECONDS);
        for (CompletableFuture<Inserted> a : answers) {
            a.get(5, TimeUnit.SECONDS);
        }
        assertThat(groups.write(job(6)).job().id()).isEqualTo(6);
        assertThat(committed).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L);
    }

    /**
     * Submits coming close together (a steady stream) each found the writer idle and were each their
     * own transaction; the linger lets the writer wait for the next one. A lone submit is not held.
     */
    @Test
    void aSubmitCloseBehindAnotherWaitsUpToTheLingerForMoreAndALoneOneDoesNot() throws Exception {
        releaseFirst.countDown();
        groups = GroupCommit.ofSubmits(store(batch -> null), new GroupCommit.Settings(1, 256, 2_000))
                .start();
        long started = System.nanoTime();
        assertThat(submit(1).get(5, TimeUnit.SECONDS).created()).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
                .as("the first submit came alone: written at once, not after the linger")
                .isLessThan(1_500);
        CompletableFuture<Inserted> second = submit(2); // close behind the first: the writer lingers
        Thread.sleep(300);
        CompletableFuture<Inserted> third = submit(3);
        second.get(5, TimeUnit.SECONDS);
        third.get(5, TimeUnit.SECONDS);
        assertThat(transactions).containsExactly(List.of(1L), List.of(2L, 3L));
    }

    @Test
    void theLingerEndsAsSoonAsTheGroupIsFull() throws Exception {
        releaseFirst.countDown();
        groups = GroupCommit.ofSubmits(store(batch -> null), new GroupCommit.Settings(1, 2, 60_000))
                .start();
        submit(1).get(5, TimeUnit.SECONDS);
        CompletableFuture<Inserted> second = submit(2);
        CompletableFuture<Inserted> third = submit(3);
        second.get(10, TimeUnit.SECONDS); // not the minute of the linger: the group of two is full
        third.get(10, TimeUnit.SECONDS);
        assertThat(transactions).hasSize(2);
        assertThat(transactions.get(0)).containsExactly(1L);
        // the two callers' threads race to the queue: either may come first
        assertThat(transactions.get(1)).containsExactlyInAnyOrder(2L, 3L);
    }

    @Test
    void closeEndsALinger() throws Exception {
        releaseFirst.countDown();
        groups = GroupCommit.ofSubmits(store(batch -> null), new GroupCommit.Settings(1, 256, 60_000))
                .start();
        submit(1).get(5, TimeUnit.SECONDS);
        CompletableFuture<Inserted> lingering = submit(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> groups.queued() == 0);
        groups.close(10_000);
        assertThat(lingering.get(5, TimeUnit.SECONDS).job().id()).isEqualTo(2);
        assertThat(committed).containsExactly(1L, 2L);
    }
}
