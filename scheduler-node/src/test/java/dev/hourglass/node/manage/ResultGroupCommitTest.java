package dev.hourglass.node.manage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.core.port.PoisonResultException;
import dev.hourglass.node.core.port.StoreContendedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit of consumers' results against a fake store that answers as the real one does: a
 * transaction ends each named job at most once (a second result for it finds it ended), and each
 * batch is answered with the jobs of its own that the transaction ended. Batches of concurrent
 * callers share a transaction; two naming the same job never do, so the later one learns that its
 * result came too late instead of being told it was written.
 */
class ResultGroupCommitTest {
    /** The job ids each transaction was asked to write, in order. */
    final List<List<Long>> transactions = new CopyOnWriteArrayList<>();

    final Set<Long> ended = java.util.concurrent.ConcurrentHashMap.newKeySet();
    final CountDownLatch firstEntered = new CountDownLatch(1);
    final CountDownLatch releaseFirst = new CountDownLatch(1);
    final ExecutorService callers = Executors.newCachedThreadPool();
    GroupCommit<List<Long>, Set<Long>> groups;

    @AfterEach
    void stop() {
        releaseFirst.countDown();
        if (groups != null) {
            groups.close();
        }
        callers.shutdownNow();
    }

    /**
     * Holds its first transaction until released. A transaction naming job 13 is refused as poison;
     * one naming job 15 fails after its commit (the engine's work on what was written); one naming
     * job 17 or 21 times out on that job's row lock.
     */
    private List<Set<Long>> store(List<List<Long>> batches) {
        List<Long> all = new ArrayList<>();
        batches.forEach(all::addAll);
        transactions.add(all);
        if (transactions.size() == 1) {
            firstEntered.countDown();
            try {
                releaseFirst.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (all.contains(13L)) {
            throw new PoisonResultException("results refused by the database: job 13", null);
        }
        if (all.contains(17L) || all.contains(21L)) {
            throw new StoreContendedException("lock wait: statement timed out", null);
        }
        Set<Long> endedNow = new HashSet<>();
        for (Long id : all) {
            if (!ended.contains(id)) {
                endedNow.add(id);
            }
        }
        ended.addAll(endedNow);
        if (all.contains(15L)) {
            throw new IllegalStateException("failed after the commit of job 15");
        }
        List<Set<Long>> answers = new ArrayList<>();
        for (List<Long> batch : batches) {
            Set<Long> own = new HashSet<>(batch);
            own.retainAll(endedNow);
            answers.add(own);
        }
        return answers;
    }

    private void start(int maxGroup) {
        groups = GroupCommit.<List<Long>, Set<Long>>ofResults(
                        this::store, batch -> batch, new GroupCommit.Settings(1, maxGroup))
                .start();
    }

    private CompletableFuture<Set<Long>> report(Long... jobIds) {
        return CompletableFuture.supplyAsync(() -> groups.write(List.of(jobIds)), callers);
    }

    /** One caller's transaction under way ({@code 1}), then {@code batches} queued behind it in order. */
    private List<CompletableFuture<Set<Long>>> queuedBehindAFirstCommit(Long[]... batches) throws Exception {
        List<CompletableFuture<Set<Long>>> answers = new ArrayList<>(List.of(report(1L)));
        assertThat(firstEntered.await(5, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < batches.length; i++) {
            answers.add(report(batches[i]));
            int queued = i + 1;
            await().atMost(Duration.ofSeconds(5)).until(() -> groups.queued() == queued);
        }
        releaseFirst.countDown();
        return answers;
    }

    private static Long[] jobs(long... ids) {
        Long[] boxed = new Long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            boxed[i] = ids[i];
        }
        return boxed;
    }

    @Test
    void batchesQueuedDuringACommitShareOneTransactionAndEachCallerGetsItsOwnJobs() throws Exception {
        start(1_000);
        List<CompletableFuture<Set<Long>>> answers =
                queuedBehindAFirstCommit(jobs(2, 3), jobs(4), jobs(5, 6, 7), jobs(8));
        assertThat(answers.get(0).get(5, TimeUnit.SECONDS)).containsExactly(1L);
        assertThat(answers.get(1).get(5, TimeUnit.SECONDS)).containsExactlyInAnyOrder(2L, 3L);
        assertThat(answers.get(2).get(5, TimeUnit.SECONDS)).containsExactly(4L);
        assertThat(answers.get(3).get(5, TimeUnit.SECONDS)).containsExactlyInAnyOrder(5L, 6L, 7L);
        assertThat(answers.get(4).get(5, TimeUnit.SECONDS)).containsExactly(8L);
        assertThat(transactions).containsExactly(List.of(1L), List.of(2L, 3L, 4L, 5L, 6L, 7L, 8L));
    }

    @Test
    void twoBatchesNamingOneJobAreNeverInOneTransaction() throws Exception {
        start(1_000);
        List<CompletableFuture<Set<Long>>> answers =
                queuedBehindAFirstCommit(jobs(5, 6), jobs(6, 7), jobs(8), jobs(1, 9));
        assertThat(answers.get(1).get(5, TimeUnit.SECONDS)).containsExactlyInAnyOrder(5L, 6L);
        assertThat(answers.get(2).get(5, TimeUnit.SECONDS))
                .as("job 6 was ended by the batch before: this result is not written")
                .containsExactly(7L);
        assertThat(answers.get(3).get(5, TimeUnit.SECONDS)).containsExactly(8L);
        assertThat(answers.get(4).get(5, TimeUnit.SECONDS)).containsExactly(9L);
        for (List<Long> t : transactions) {
            assertThat(t).as("a job named twice in one transaction").doesNotHaveDuplicates();
        }
        assertThat(transactions)
                .as("the one left out starts the next group, and the queue keeps its order")
                .containsExactly(List.of(1L), List.of(5L, 6L), List.of(6L, 7L, 8L, 1L, 9L));
    }

    @Test
    void aGroupHoldsAtMostMaxGroupResultsAndALargerBatchIsWrittenAlone() throws Exception {
        start(4);
        List<CompletableFuture<Set<Long>>> answers =
                queuedBehindAFirstCommit(jobs(2, 3, 4), jobs(5, 6), jobs(7, 8, 9, 10, 11, 12), jobs(14));
        for (CompletableFuture<Set<Long>> a : answers) {
            a.get(5, TimeUnit.SECONDS);
        }
        assertThat(transactions)
                .containsExactly(
                        List.of(1L),
                        List.of(2L, 3L, 4L),
                        List.of(5L, 6L),
                        List.of(7L, 8L, 9L, 10L, 11L, 12L),
                        List.of(14L));
        assertThat(ended).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 14L);
    }

    @Test
    void aBatchTheDatabaseRefusesFailsOnlyItsOwnCaller() throws Exception {
        start(1_000);
        List<CompletableFuture<Set<Long>>> answers = queuedBehindAFirstCommit(jobs(10, 11), jobs(12, 13), jobs(14));
        assertThatThrownBy(() -> answers.get(2).get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(PoisonResultException.class);
        assertThat(answers.get(1).get(5, TimeUnit.SECONDS)).containsExactlyInAnyOrder(10L, 11L);
        assertThat(answers.get(3).get(5, TimeUnit.SECONDS)).containsExactly(14L);
        assertThat(transactions.get(1))
                .as("the group, refused as a whole, then each batch alone")
                .containsExactly(10L, 11L, 12L, 13L, 14L);
        assertThat(ended).containsExactlyInAnyOrder(1L, 10L, 11L, 14L);
    }

    @Test
    void anyOtherFailureReachesEveryCallerOfTheGroupAndIsNotWrittenAgain() throws Exception {
        start(1_000);
        List<CompletableFuture<Set<Long>>> answers = queuedBehindAFirstCommit(jobs(10, 11), jobs(14, 15), jobs(16));
        for (int i = 1; i < answers.size(); i++) {
            CompletableFuture<Set<Long>> answer = answers.get(i);
            assertThatThrownBy(() -> answer.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        }
        assertThat(transactions)
                .as("written once: written again, each batch would be answered as not current")
                .hasSize(2);
    }

    @Test
    void afterALockTimeoutEachBatchIsWrittenAloneAndOnlyTheOneWaitingOnTheLockFails() throws Exception {
        start(1_000);
        List<CompletableFuture<Set<Long>>> answers = queuedBehindAFirstCommit(jobs(17), jobs(18), jobs(19, 20));
        assertThatThrownBy(() -> answers.get(1).get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(StoreContendedException.class);
        assertThat(answers.get(2).get(5, TimeUnit.SECONDS)).containsExactly(18L);
        assertThat(answers.get(3).get(5, TimeUnit.SECONDS)).containsExactlyInAnyOrder(19L, 20L);
        assertThat(transactions)
                .containsExactly(
                        List.of(1L), List.of(17L, 18L, 19L, 20L), List.of(17L), List.of(18L), List.of(19L, 20L));
    }

    @Test
    void aSecondBatchTimingOutAloneFailsTheRestAtOnce() throws Exception {
        start(1_000);
        List<CompletableFuture<Set<Long>>> answers = queuedBehindAFirstCommit(jobs(17), jobs(21), jobs(22));
        for (int i = 1; i < answers.size(); i++) {
            CompletableFuture<Set<Long>> answer = answers.get(i);
            assertThatThrownBy(() -> answer.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreContendedException.class);
        }
        assertThat(transactions)
                .as("two rows held: the server is not letting batches through, the third is not tried")
                .containsExactly(List.of(1L), List.of(17L, 21L, 22L), List.of(17L), List.of(21L));
    }
}
