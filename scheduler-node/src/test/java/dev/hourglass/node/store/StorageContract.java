package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptHolderUnreachableException;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Execution;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.JobPage;
import dev.hourglass.node.core.job.JobQuery;
import dev.hourglass.node.core.job.NextStep;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.DuePage;
import dev.hourglass.node.core.port.DuePage.Cursor;
import dev.hourglass.node.core.port.JobWrites;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.service.TargetGrants;
import dev.hourglass.node.core.timeindex.IndexEntry;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.store.mybatis.LiveCountFolder;
import dev.hourglass.node.store.mybatis.MyBatisAppRepository;
import dev.hourglass.node.store.mybatis.MyBatisAttemptStore;
import dev.hourglass.node.store.mybatis.MyBatisJobMutations;
import dev.hourglass.node.store.mybatis.MyBatisJobRepository;
import dev.hourglass.node.store.mybatis.MyBatisServiceRepository;
import dev.hourglass.node.store.mybatis.SqlFailures;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The storage contract: the same scenarios on every supported database. A subclass names the
 * database; the suite runs the real MyBatis adapters and Flyway migrations against it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class StorageContract {
    private static final AtomicLong IDS = new AtomicLong(1_000);
    private static final long T0 = 1_800_000_000_000L;
    /** The holder of a claimed attempt says it has sent it: the cancel keeps the attempt's log row. */
    private static final AttemptHolders SENT = (node, id, attempt) -> AttemptHolders.Answer.UNDER_WAY;

    protected Database db;
    protected MyBatisJobRepository jobs;
    protected MyBatisJobMutations mutations;
    protected MyBatisAttemptStore attempts;
    protected MyBatisServiceRepository services;
    protected MyBatisAppRepository apps;
    private String app;

    /** Opens the database under test (migrations run on open). */
    protected abstract Database open();

    /** Whether concurrent conditional updates are to be tested (H2 is the demo database only). */
    protected boolean testsConcurrency() {
        return true;
    }

    @BeforeAll
    void openDatabase() {
        db = open();
        jobs = new MyBatisJobRepository(db.sessions(), new SqlFailures());
        mutations = new MyBatisJobMutations(db.sessions(), "n1");
        attempts = new MyBatisAttemptStore(db.sessions(), "n1", new SqlFailures());
        services = new MyBatisServiceRepository(db.sessions());
        apps = new MyBatisAppRepository(db.sessions());
        app = "app" + System.nanoTime() % 1_000_000;
    }

    @AfterAll
    void closeDatabase() {
        db.close();
    }

    private Job job(long fireAt, String bizKey, int shard) {
        return job("svc", fireAt, bizKey, shard);
    }

    private Job job(String service, long fireAt, String bizKey, int shard) {
        return new Job(
                IDS.incrementAndGet() * 1000 + (System.nanoTime() % 1000),
                app,
                service,
                bizKey,
                shard,
                JobState.DELAYED,
                fireAt,
                fireAt,
                null,
                0,
                0,
                3,
                1_000,
                null,
                "{\"n\":1}",
                Map.of("k", "v"),
                null,
                null,
                0,
                T0,
                T0);
    }

    private Job withExpiry(Job j, long expireAt) {
        return new Job(
                j.id(),
                j.app(),
                j.service(),
                j.bizKey(),
                j.shard(),
                j.state(),
                j.fireAt(),
                j.dueAt(),
                expireAt,
                j.attempts(),
                j.budgetBase(),
                j.maxAttempts(),
                j.timeoutMs(),
                expireAt - j.fireAt(),
                j.payload(),
                j.attributes(),
                j.lastError(),
                j.ownerNode(),
                j.version(),
                j.createdAt(),
                j.updatedAt());
    }

    @Test
    void insertFindAndBizKeyIdempotence() {
        Job j = job(T0 + 1_000, "biz-" + System.nanoTime(), 1);
        assertThat(jobs.insert(j).created()).isTrue();
        Job stored = jobs.find(j.id()).orElseThrow();
        assertThat(stored).isEqualTo(j);
        Job twin = job(T0 + 2_000, j.bizKey(), 2);
        JobWrites.Inserted again = jobs.insert(twin);
        assertThat(again.created()).isFalse();
        assertThat(again.job().id()).isEqualTo(j.id());
        assertThat(jobs.find(twin.id())).isEmpty();
        assertThat(jobs.findByBizKey(app, j.bizKey()).orElseThrow().id()).isEqualTo(j.id());
    }

    @Test
    void insertAllKeepsOrderAndResolvesKnownAndRepeatedKeys() {
        String key = "batch-" + System.nanoTime();
        Job known = job(T0, key + "-known", 0);
        jobs.insert(known);
        Job a = job(T0, null, 0);
        Job b = job(T0, key + "-known", 0);
        Job c = job(T0, key + "-new", 0);
        Job d = job(T0, key + "-new", 0);
        List<JobWrites.Inserted> out = jobs.insertAll(List.of(a, b, c, d));
        assertThat(out).extracting(JobWrites.Inserted::created).containsExactly(true, false, true, false);
        assertThat(out.get(1).job().id()).isEqualTo(known.id());
        assertThat(out.get(3).job().id()).isEqualTo(c.id());
        assertThat(jobs.find(a.id())).isPresent();
        assertThat(jobs.find(d.id())).isEmpty();
    }

    @Test
    void claimWinsOnlyDueDelayedJobsAndNeverTwice() {
        Job due = job(T0, null, 3);
        Job later = job(T0 + 60_000, null, 3);
        jobs.insertAll(List.of(due, later));
        AttemptStore.Claim first = attempts.claim(List.of(due.id(), later.id()), "n1", T0 + 5, T0 + 5);
        assertThat(first.claimed()).extracting(Job::id).containsExactly(due.id());
        Job running = first.claimed().get(0);
        assertThat(running.state()).isEqualTo(JobState.RUNNING);
        assertThat(running.attempts()).isEqualTo(1);
        assertThat(running.dueAt()).isEqualTo(T0 + 5 + 1_000);
        assertThat(attempts.claim(List.of(due.id()), "n2", T0 + 10, T0 + 10).claimed())
                .isEmpty();
        List<Execution> log = jobs.executions(due.id());
        assertThat(log).hasSize(1);
        assertThat(log.get(0).node()).isEqualTo("n1");
        assertThat(log.get(0).latenessMs()).isEqualTo(5);
        assertThat(log.get(0).outcome()).isNull();
    }

    @Test
    void anAttemptsLogRowIsWrittenOnceWhenItEndsAndTheAttemptInFlightIsReadFromItsJob() throws Exception {
        Job j = job(T0 + 5, null, 3);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "n1", T0, T0 + 10);
        assertThat(logRows(j.id())).as("no log row while the attempt runs").isZero();
        assertThat(jobs.executions(j.id())).singleElement().satisfies(e -> {
            assertThat(e.attempt()).isEqualTo(1);
            assertThat(e.node()).isEqualTo("n1");
            assertThat(e.firedAt()).as("planned at the fire time").isEqualTo(T0 + 5);
            assertThat(e.outcome()).isNull();
            assertThat(e.finishedAt()).isNull();
        });
        attempts.record(
                List.of(new AttemptResult(
                        j.id(),
                        1,
                        AttemptOutcome.RETRY,
                        "HTTP 503",
                        T0 + 6,
                        T0 + 9,
                        NextStep.retryAt(T0 + 100),
                        3,
                        app + "/svc")),
                T0 + 9);
        assertThat(logRows(j.id())).isEqualTo(1);
        attempts.claim(List.of(j.id()), "n2", T0 + 100, T0 + 100);
        assertThat(jobs.executions(j.id()))
                .satisfiesExactly(
                        first -> {
                            assertThat(first.outcome()).isEqualTo(AttemptOutcome.RETRY);
                            assertThat(first.node()).isEqualTo("n1");
                            assertThat(first.firedAt())
                                    .as("the send time the result gave")
                                    .isEqualTo(T0 + 6);
                            assertThat(first.finishedAt()).isEqualTo(T0 + 9);
                            assertThat(first.message()).isEqualTo("HTTP 503");
                        },
                        second -> {
                            assertThat(second.attempt()).isEqualTo(2);
                            assertThat(second.node()).isEqualTo("n2");
                            assertThat(second.outcome()).isNull();
                        });
    }

    /**
     * An attempt claimed by a node before V14 (which opened its log row at the claim and wrote no
     * start on the job) is closed in that row by a node of this version.
     */
    @Test
    void anAttemptClaimedBeforeV14IsClosedInTheLogRowItsClaimOpened() throws Exception {
        Job j = job(T0, null, 4);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "old", T0, T0);
        sql("UPDATE job_delay_task SET started_at = NULL WHERE id = " + j.id());
        sql("INSERT INTO job_delay_task_execlog (job_id, attempt, node, fire_at, fired_at, app, service) VALUES ("
                + j.id() + ", 1, 'old', " + T0 + ", " + (T0 + 3) + ", '" + app + "', 'svc')");
        assertThat(jobs.executions(j.id())).singleElement().satisfies(e -> assertThat(e.firedAt())
                .isEqualTo(T0 + 3));
        attempts.record(
                List.of(new AttemptResult(
                        j.id(), 1, AttemptOutcome.SUCCESS, null, null, T0 + 20, NextStep.finished(), 4, app + "/svc")),
                T0 + 20);
        assertThat(jobs.find(j.id()).orElseThrow().state()).isEqualTo(JobState.FINISHED);
        assertThat(jobs.executions(j.id())).singleElement().satisfies(e -> {
            assertThat(e.outcome()).isEqualTo(AttemptOutcome.SUCCESS);
            assertThat(e.node()).isEqualTo("old");
            assertThat(e.firedAt()).as("the send time its row had").isEqualTo(T0 + 3);
            assertThat(e.finishedAt()).isEqualTo(T0 + 20);
        });
    }

    /** Only a running attempt has a start on its job: a retry and a give-back take it off. */
    @Test
    void anAttemptRetriedOrGivenBackLeavesNoStartOnItsJob() throws Exception {
        Job retried = job(T0, null, 3);
        Job givenBack = job(T0, null, 3);
        jobs.insertAll(List.of(retried, givenBack));
        attempts.claim(List.of(retried.id(), givenBack.id()), "n1", T0, T0);
        assertThat(startedAt(retried.id())).isEqualTo(T0);
        attempts.record(
                List.of(new AttemptResult(
                        retried.id(),
                        1,
                        AttemptOutcome.RETRY,
                        "HTTP 503",
                        T0 + 1,
                        T0 + 2,
                        NextStep.retryAt(T0 + 100),
                        3,
                        app + "/svc")),
                T0 + 2);
        assertThat(attempts.unclaim(List.of(new AttemptStore.ClaimedAttempt(givenBack.id(), 1)), "n1", T0 + 3))
                .isEqualTo(1);
        assertThat(startedAt(retried.id())).as("retried").isNull();
        assertThat(startedAt(givenBack.id())).as("given back").isNull();
    }

    /**
     * A running attempt's log row is not expected before its result writes it; should one be there
     * (an older node's claim opened it), an open one is closed by the result and a closed one is
     * left as it is, and the rest of the batch is written.
     */
    @Test
    void aLogRowFoundAlreadyThereWhenARunningAttemptEndsIsClosedIfOpenAndLeftIfClosed() throws Exception {
        Job open = job(T0, null, 4);
        Job closed = job(T0, null, 4);
        Job plain = job(T0, null, 4);
        jobs.insertAll(List.of(open, closed, plain));
        attempts.claim(List.of(open.id(), closed.id(), plain.id()), "n1", T0, T0);
        sql("INSERT INTO job_delay_task_execlog (job_id, attempt, node, fire_at, fired_at, app, service) VALUES ("
                + open.id() + ", 1, 'old', " + T0 + ", " + (T0 + 3) + ", '" + app + "', 'svc')");
        sql("INSERT INTO job_delay_task_execlog (job_id, attempt, node, fire_at, fired_at, app, service,"
                + " finished_at, outcome, message) VALUES (" + closed.id() + ", 1, 'old', " + T0 + ", " + (T0 + 3)
                + ", '" + app + "', 'svc', " + (T0 + 4) + ", 'FAIL', 'before')");
        attempts.record(
                Stream.of(open, closed, plain)
                        .map(j -> new AttemptResult(
                                j.id(),
                                1,
                                AttemptOutcome.SUCCESS,
                                "fine",
                                T0 + 10,
                                T0 + 20,
                                NextStep.finished(),
                                4,
                                app + "/svc"))
                        .toList(),
                T0 + 20);
        for (Job j : List.of(open, closed, plain)) {
            assertThat(jobs.find(j.id()).orElseThrow().state()).isEqualTo(JobState.FINISHED);
            assertThat(logRows(j.id())).as("one row per attempt").isEqualTo(1);
        }
        assertThat(jobs.executions(open.id())).singleElement().satisfies(e -> {
            assertThat(e.outcome()).as("closed by the result").isEqualTo(AttemptOutcome.SUCCESS);
            assertThat(e.firedAt()).isEqualTo(T0 + 10);
            assertThat(e.finishedAt()).isEqualTo(T0 + 20);
            assertThat(e.message()).isEqualTo("fine");
        });
        assertThat(jobs.executions(closed.id())).singleElement().satisfies(e -> {
            assertThat(e.outcome()).as("left as it was").isEqualTo(AttemptOutcome.FAIL);
            assertThat(e.finishedAt()).isEqualTo(T0 + 4);
            assertThat(e.message()).isEqualTo("before");
        });
        assertThat(jobs.executions(plain.id())).singleElement().satisfies(e -> {
            assertThat(e.outcome()).isEqualTo(AttemptOutcome.SUCCESS);
            assertThat(e.node()).isEqualTo("n1");
        });
    }

    private Long startedAt(long jobId) throws Exception {
        try (org.apache.ibatis.session.SqlSession s = db.sessions().openSession(true);
                java.sql.Statement st = s.getConnection().createStatement();
                java.sql.ResultSet rs = st.executeQuery("SELECT started_at FROM job_delay_task WHERE id = " + jobId)) {
            rs.next();
            long at = rs.getLong(1);
            return rs.wasNull() ? null : at;
        }
    }

    private long logRows(long jobId) throws Exception {
        try (org.apache.ibatis.session.SqlSession s = db.sessions().openSession(true);
                java.sql.Statement st = s.getConnection().createStatement();
                java.sql.ResultSet rs =
                        st.executeQuery("SELECT COUNT(*) FROM job_delay_task_execlog WHERE job_id = " + jobId)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void sql(String statement) throws Exception {
        try (org.apache.ibatis.session.SqlSession s = db.sessions().openSession(true);
                java.sql.Statement st = s.getConnection().createStatement()) {
            st.executeUpdate(statement);
        }
    }

    @Test
    void aClaimAheadOfTheFireTimeIsSentAtTheFireTimeAndItsDeadlineCountsFromThere() {
        Job soon = job(T0 + 50, null, 3);
        Job later = job(T0 + 150, null, 3);
        jobs.insertAll(List.of(soon, later));
        AttemptStore.Claim claim = attempts.claim(List.of(soon.id(), later.id()), "n1", T0, T0 + 100);
        assertThat(claim.claimed()).extracting(Job::id).containsExactly(soon.id());
        assertThat(claim.claimed().get(0).dueAt()).isEqualTo(T0 + 50 + 1_000);
        Execution e = jobs.executions(soon.id()).get(0);
        assertThat(e.firedAt()).as("sent at the fire time, not at the claim").isEqualTo(T0 + 50);
        assertThat(e.latenessMs()).isZero();
    }

    @Test
    void concurrentClaimsOfTheSameJobsClaimEachExactlyOnce() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(testsConcurrency());
        List<Job> batch =
                IntStream.range(0, 200).mapToObj(i -> job(T0, null, 4)).toList();
        jobs.insertAll(batch);
        List<Long> ids = batch.stream().map(Job::id).toList();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<List<Long>>> claimers = new ArrayList<>();
            for (int n = 0; n < 4; n++) {
                String node = "n" + n;
                List<Long> shuffled = new ArrayList<>(ids);
                Collections.shuffle(shuffled);
                claimers.add(() -> {
                    MyBatisAttemptStore store = new MyBatisAttemptStore(db.sessions(), node, new SqlFailures());
                    List<Long> won = new ArrayList<>();
                    for (int i = 0; i < shuffled.size(); i += 20) {
                        store.claim(shuffled.subList(i, i + 20), node, T0 + 1, T0 + 1)
                                .claimed()
                                .forEach(j -> won.add(j.id()));
                    }
                    return won;
                });
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> f : pool.invokeAll(claimers)) {
                all.addAll(f.get());
            }
            assertThat(all).hasSize(200);
            assertThat(new HashSet<>(all)).containsExactlyInAnyOrderElementsOf(ids);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void expiredJobsEndAsExpiredInsteadOfFiring() {
        Job j = withExpiry(job(T0, null, 5), T0 + 100);
        jobs.insert(j);
        AttemptStore.Claim claim = attempts.claim(List.of(j.id()), "n1", T0 + 101, T0 + 101);
        assertThat(claim.claimed()).isEmpty();
        assertThat(claim.expired()).containsExactly(j.id());
        assertThat(jobs.find(j.id()).orElseThrow().state()).isEqualTo(JobState.EXPIRED);
    }

    @Test
    void resultsRetryFinishAndIgnoreStaleAttempts() {
        Job retried = job(T0, null, 6);
        Job finished = job(T0, null, 6);
        jobs.insertAll(List.of(retried, finished));
        attempts.claim(List.of(retried.id(), finished.id()), "n1", T0, T0);
        attempts.record(
                List.of(
                        new AttemptResult(
                                retried.id(),
                                1,
                                AttemptOutcome.RETRY,
                                "HTTP 500",
                                null,
                                T0 + 50,
                                NextStep.retryAt(T0 + 1_050),
                                6,
                                "a/svc"),
                        new AttemptResult(
                                finished.id(),
                                1,
                                AttemptOutcome.SUCCESS,
                                null,
                                null,
                                T0 + 60,
                                NextStep.finished(),
                                6,
                                "a/svc")),
                T0 + 60);
        Job r = jobs.find(retried.id()).orElseThrow();
        assertThat(r.state()).isEqualTo(JobState.DELAYED);
        assertThat(r.dueAt()).isEqualTo(T0 + 1_050);
        assertThat(r.lastError()).isEqualTo("HTTP 500");
        assertThat(jobs.find(finished.id()).orElseThrow().state()).isEqualTo(JobState.FINISHED);
        assertThat(jobs.executions(finished.id()).get(0).outcome()).isEqualTo(AttemptOutcome.SUCCESS);
        // a late result for attempt 1 of the retried job changes nothing now
        attempts.record(
                List.of(new AttemptResult(
                        retried.id(), 1, AttemptOutcome.SUCCESS, null, null, T0 + 70, NextStep.finished(), 6, "a/svc")),
                T0 + 70);
        assertThat(jobs.find(retried.id()).orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(jobs.executions(retried.id()).get(0).outcome()).isEqualTo(AttemptOutcome.RETRY);
    }

    /**
     * One batch of results for jobs that end each its own way: the ends are written in one statement
     * (each row with its own final state and message) and the log rows in one statement, each
     * row's values chosen by its job. Each job must get exactly its own outcome, message, times and
     * final state; a stale result in the same batch changes nothing, and a send mark for another
     * job in the batch still applies.
     */
    @Test
    void aBatchOfResultsWritesEachJobsOwnOutcome() {
        Job ok1 = job(T0, null, 3);
        Job ok2 = job(T0, null, 3);
        Job failed = job(T0, null, 3);
        Job retried = job(T0, null, 3);
        Job marked = job(T0, null, 3);
        jobs.insertAll(List.of(ok1, ok2, failed, retried, marked));
        assertThat(attempts.claim(List.of(ok1.id(), ok2.id(), failed.id(), retried.id(), marked.id()), "n1", T0, T0)
                        .claimed())
                .hasSize(5);
        attempts.record(
                List.of(
                        new AttemptResult(
                                ok1.id(),
                                1,
                                AttemptOutcome.SUCCESS,
                                null,
                                T0 + 11L,
                                T0 + 21,
                                NextStep.finished(),
                                3,
                                "a/svc"),
                        new AttemptResult(
                                ok2.id(),
                                1,
                                AttemptOutcome.SUCCESS,
                                "fine",
                                null,
                                T0 + 22,
                                NextStep.finished(),
                                3,
                                "a/svc"),
                        new AttemptResult(
                                failed.id(),
                                1,
                                AttemptOutcome.FAIL,
                                "HTTP 400",
                                T0 + 13L,
                                T0 + 23,
                                NextStep.failed(),
                                3,
                                "a/svc"),
                        new AttemptResult(
                                retried.id(),
                                1,
                                AttemptOutcome.RETRY,
                                "HTTP 503",
                                null,
                                T0 + 24,
                                NextStep.retryAt(T0 + 2_000),
                                3,
                                "a/svc"),
                        new AttemptResult(
                                failed.id(),
                                2,
                                AttemptOutcome.SUCCESS,
                                null,
                                null,
                                T0 + 25,
                                NextStep.finished(),
                                3,
                                "a/svc"),
                        AttemptResult.sentOnly(marked.id(), 1, T0 + 15, 3, "a/svc")),
                T0 + 30);

        assertThat(jobs.find(ok1.id()).orElseThrow().state()).isEqualTo(JobState.FINISHED);
        assertThat(jobs.find(ok2.id()).orElseThrow()).satisfies(j -> {
            assertThat(j.state()).isEqualTo(JobState.FINISHED);
            assertThat(j.lastError())
                    .as("a success's message is kept as its last word")
                    .isEqualTo("fine");
        });
        assertThat(jobs.find(failed.id()).orElseThrow()).satisfies(j -> {
            assertThat(j.state())
                    .as("the stale attempt 2 result changed nothing")
                    .isEqualTo(JobState.FAILED);
            assertThat(j.lastError()).isEqualTo("HTTP 400");
            assertThat(j.attempts()).isEqualTo(1);
        });
        assertThat(jobs.find(retried.id()).orElseThrow()).satisfies(j -> {
            assertThat(j.state()).isEqualTo(JobState.DELAYED);
            assertThat(j.dueAt()).isEqualTo(T0 + 2_000);
        });
        assertThat(jobs.find(marked.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);

        assertThat(jobs.executions(ok1.id())).singleElement().satisfies(e -> {
            assertThat(e.outcome()).isEqualTo(AttemptOutcome.SUCCESS);
            assertThat(e.message()).isNull();
            assertThat(e.firedAt()).isEqualTo(T0 + 11);
            assertThat(e.finishedAt()).isEqualTo(T0 + 21);
        });
        assertThat(jobs.executions(ok2.id())).singleElement().satisfies(e -> {
            assertThat(e.outcome()).isEqualTo(AttemptOutcome.SUCCESS);
            assertThat(e.message()).isEqualTo("fine");
            assertThat(e.firedAt()).as("no send time given: the claim's stays").isEqualTo(T0);
            assertThat(e.finishedAt()).isEqualTo(T0 + 22);
        });
        assertThat(jobs.executions(failed.id())).singleElement().satisfies(e -> {
            assertThat(e.outcome()).isEqualTo(AttemptOutcome.FAIL);
            assertThat(e.message()).isEqualTo("HTTP 400");
            assertThat(e.firedAt()).isEqualTo(T0 + 13);
            assertThat(e.finishedAt()).isEqualTo(T0 + 23);
        });
        assertThat(jobs.executions(retried.id())).singleElement().satisfies(e -> {
            assertThat(e.outcome()).isEqualTo(AttemptOutcome.RETRY);
            assertThat(e.message()).isEqualTo("HTTP 503");
            assertThat(e.finishedAt()).isEqualTo(T0 + 24);
        });
        assertThat(jobs.executions(marked.id())).singleElement().satisfies(e -> {
            assertThat(e.outcome()).isNull();
            assertThat(e.firedAt()).isEqualTo(T0 + 15);
        });
    }

    /**
     * Submits whose payloads together are over MariaDB 10.x's default packet (16 MiB, which the
     * test server runs with) stored in one call, as a group commit of single submits can hold (256
     * of 64 KiB): 300 jobs of 60,000 characters. The insert is split by size, and every job is
     * stored with its payload whole. It tells only on MariaDB: H2 has no packet limit, and MySQL
     * 8's default (64 MiB) is above these 18 MB.
     */
    @Test
    void insertAllOfJobsWithLargePayloadsIsWrittenInStatementsTheDatabaseTakes() {
        String payload = "\"" + "y".repeat(60_000) + "\"";
        List<Job> big = jobsWithPayload(300, payload, 15);
        List<JobWrites.Inserted> out = jobs.insertAll(big);
        assertThat(out).hasSize(300).allMatch(JobWrites.Inserted::created);
        for (Job j : big) {
            assertThat(jobs.find(j.id()).orElseThrow().payload()).isEqualTo(payload);
        }
    }

    /** {@code count} jobs due at T0 with this payload, on a shard of the test's own (others read what is due on theirs). */
    private List<Job> jobsWithPayload(int count, String payload, int shard) {
        List<Job> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(job(T0, null, shard).toBuilder().payload(payload).build());
        }
        return out;
    }

    /**
     * A batch of results ending jobs whose payloads together are over MariaDB 10.x's default packet
     * (16 MiB, which the test server runs with): 300 jobs of 60,000 characters. The backlog insert carries the payloads, so it is split
     * by size, and every job ends with its payload whole.
     */
    @Test
    void aBatchOfResultsEndingJobsWithLargePayloadsIsWrittenInStatementsTheDatabaseTakes() {
        // H2 has no packet limit: there the test is of an 18 MB transaction on the node's file store
        String payload = "\"" + "x".repeat(60_000) + "\"";
        List<Job> big = jobsWithPayload(300, payload, 14);
        for (int from = 0; from < big.size(); from += 50) {
            jobs.insertAll(big.subList(from, from + 50));
        }
        List<Long> ids = big.stream().map(Job::id).sorted().toList();
        assertThat(attempts.claim(ids, "n1", T0, T0).claimed()).hasSize(300);
        List<AttemptResult> results = new ArrayList<>();
        for (long id : ids) {
            results.add(new AttemptResult(
                    id, 1, AttemptOutcome.SUCCESS, null, null, T0 + 10, NextStep.finished(), 14, app + "/svc"));
        }

        assertThat(attempts.record(results, T0 + 10)).hasSize(300);
        for (long id : ids) {
            Job ended = jobs.find(id).orElseThrow();
            assertThat(ended.state()).isEqualTo(JobState.FINISHED);
            assertThat(ended.payload()).isEqualTo(payload);
        }
    }

    /**
     * A batch of results the database refuses writes nothing: here the ending job's bizKey is in
     * the backlog already (what a bizKey race once left), so its move there breaks the backlog's
     * unique key after its log row was closed in the same transaction. The attempt stays RUNNING
     * with its log row open, and the quarantine then ends it FAILED with that row's outcome ERROR.
     */
    @Test
    void aResultBatchTheDatabaseRefusesWritesNothingOfIt() throws Exception {
        String bizKey = "refused-" + System.nanoTime();
        Job j = job(T0, bizKey, 13);
        jobs.insertAll(List.of(j));
        attempts.claim(List.of(j.id()), "n1", T0, T0);
        try (org.apache.ibatis.session.SqlSession s = db.sessions().openSession(true);
                java.sql.Statement st = s.getConnection().createStatement()) {
            st.executeUpdate("INSERT INTO job_delay_task_backlog (id, app, service, biz_key, shard, state, fire_at,"
                    + " due_at, attempts, budget_base, max_attempts, timeout_ms, payload, version, created_at,"
                    + " updated_at, ended_at) VALUES (" + (j.id() + 1) + ", '" + app + "', 'svc', '" + bizKey
                    + "', 13, 'FINISHED', 0, 0, 1, 0, 3, 1000, 'null', 0, 0, 0, 0)");
        }
        AttemptResult success = new AttemptResult(
                j.id(), 1, AttemptOutcome.SUCCESS, "fine", null, T0 + 10, NextStep.finished(), 13, app + "/svc");

        assertThatThrownBy(() -> attempts.record(List.of(success), T0 + 10))
                .isInstanceOf(dev.hourglass.node.core.port.PoisonResultException.class);
        assertThat(jobs.find(j.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(jobs.executions(j.id())).singleElement().satisfies(e -> assertThat(e.outcome())
                .as("its log row, still open")
                .isNull());

        attempts.quarantine(success, "refused", T0 + 20);
        assertThat(jobs.find(j.id()).orElseThrow().state()).isEqualTo(JobState.FAILED);
        assertThat(jobs.executions(j.id())).singleElement().satisfies(e -> assertThat(e.outcome())
                .isEqualTo(AttemptOutcome.ERROR));
    }

    /**
     * A success with nothing to record is copied to the backlog without an update first; it must
     * apply exactly as the conditional update did: only to the attempt that is RUNNING now, keeping
     * what the earlier attempts recorded.
     */
    @Test
    void aSuccessEndsOnlyTheCurrentAttemptAndKeepsTheEarlierError() {
        Job j = job(T0, null, 7);
        jobs.insertAll(List.of(j));
        attempts.claim(List.of(j.id()), "n1", T0, T0);
        attempts.record(
                List.of(new AttemptResult(
                        j.id(),
                        1,
                        AttemptOutcome.RETRY,
                        "HTTP 500",
                        null,
                        T0 + 50,
                        NextStep.retryAt(T0 + 1_000),
                        7,
                        "a/svc")),
                T0 + 50);
        assertThat(attempts.claim(List.of(j.id()), "n2", T0 + 1_000, T0 + 1_000).claimed())
                .hasSize(1);
        attempts.record(
                List.of(new AttemptResult(
                        j.id(), 1, AttemptOutcome.SUCCESS, null, null, T0 + 1_010, NextStep.finished(), 7, "a/svc")),
                T0 + 1_010);
        Job running = jobs.find(j.id()).orElseThrow();
        assertThat(running.state()).as("a late success of attempt 1").isEqualTo(JobState.RUNNING);
        assertThat(running.attempts()).isEqualTo(2);

        attempts.record(
                List.of(new AttemptResult(
                        j.id(), 2, AttemptOutcome.SUCCESS, null, null, T0 + 1_020, NextStep.finished(), 7, "a/svc")),
                T0 + 1_020);
        Job done = jobs.find(j.id()).orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.FINISHED);
        assertThat(done.attempts()).isEqualTo(2);
        assertThat(done.lastError()).as("the retry's error stays").isEqualTo("HTTP 500");
        assertThat(done.version())
                .as("one version more than the running attempt's")
                .isEqualTo(running.version() + 1);
        assertThat(jobs.executions(j.id()))
                .extracting(e -> e.outcome())
                .containsExactly(AttemptOutcome.RETRY, AttemptOutcome.SUCCESS);
    }

    /**
     * The timeout sweep decides from a read of the job; by the time its result is written the
     * attempt may have been given back and claimed again under the same number. Its result is for
     * the claim it read, and must not end the new one.
     */
    /**
     * A CONSUMER-mode attempt: the node marks the real send time, and the consumer's result is
     * written at once when it reports. A consumer faster than the result writer reports before
     * the mark is written: the mark still sets the attempt's send time (its lateness), not the
     * claim's planned one.
     */
    @Test
    void aSendMarkWrittenAfterTheConsumersResultStillSetsTheSendTime() {
        Job j = job(T0, null, 6);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "n1", T0, T0);
        attempts.record(
                List.of(new AttemptResult(
                        j.id(), 1, AttemptOutcome.SUCCESS, null, null, T0 + 60, NextStep.finished(), 6, "app/svc")),
                T0 + 60);
        attempts.record(
                List.of(new AttemptResult(j.id(), 1, null, null, T0 + 40L, T0 + 40, null, 6, "app/svc")), T0 + 61);
        assertThat(jobs.executions(j.id())).singleElement().satisfies(e -> {
            assertThat(e.outcome()).isEqualTo(AttemptOutcome.SUCCESS);
            assertThat(e.firedAt()).as("sent 40 ms late").isEqualTo(T0 + 40);
        });
    }

    @Test
    void aSweepsResultChangesNothingOnceTheAttemptWasGivenBackAndClaimedAgain() {
        Job j = job(T0, null, 6);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "n1", T0, T0);
        Job read = jobs.find(j.id()).orElseThrow(); // as the sweep reads it: RUNNING, attempt 1
        assertThat(attempts.unclaim(List.of(new AttemptStore.ClaimedAttempt(j.id(), 1)), "n1", T0 + 1))
                .isEqualTo(1);
        assertThat(attempts.claim(List.of(j.id()), "n1", T0 + 2, T0 + 2).claimed())
                .singleElement()
                .satisfies(again -> assertThat(again.attempts()).isEqualTo(1));
        AttemptResult stale = timedOut(read, T0 + 3);
        attempts.record(List.of(stale), T0 + 3);
        Job now = jobs.find(j.id()).orElseThrow();
        assertThat(now.state()).as("the second claim goes on").isEqualTo(JobState.RUNNING);
        assertThat(jobs.executions(j.id())).singleElement().satisfies(e -> assertThat(e.outcome())
                .as("its attempt is open")
                .isNull());
        // the same result decided from a read of the second claim applies
        attempts.record(List.of(timedOut(now, T0 + 4)), T0 + 4);
        assertThat(jobs.find(j.id()).orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(jobs.executions(j.id()).get(0).outcome()).isEqualTo(AttemptOutcome.TIMEOUT);
    }

    /**
     * The sender's result and a sweep's TIMEOUT for the same attempt, written in one batch (the
     * sweep read the attempt just before the sender's result was queued): the first queued counts.
     * Both pass the version check, and the writer's retries run before its ends, so without this
     * the TIMEOUT's retry undid the SUCCESS and the job was delivered again.
     */
    @Test
    void ofTwoResultsForOneAttemptInABatchTheFirstQueuedCounts() {
        Job j = job(T0, null, 6);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "n1", T0, T0);
        Job read = jobs.find(j.id()).orElseThrow();
        attempts.record(
                List.of(
                        new AttemptResult(
                                j.id(), 1, AttemptOutcome.SUCCESS, null, null, T0 + 5, NextStep.finished(), 6, "a/svc"),
                        timedOut(read, T0 + 6)),
                T0 + 6);
        assertThat(jobs.find(j.id()).orElseThrow().state()).isEqualTo(JobState.FINISHED);
        assertThat(jobs.executions(j.id()).get(0).outcome()).isEqualTo(AttemptOutcome.SUCCESS);
    }

    private static AttemptResult timedOut(Job read, long now) {
        return new AttemptResult(
                read.id(),
                read.attempts(),
                AttemptOutcome.TIMEOUT,
                "no result",
                null,
                now,
                NextStep.retryAt(now + 1_000),
                read.shard(),
                read.serviceKey(),
                read.version());
    }

    @Test
    void loadDueAndTimedOutUseTheRangesAsked() {
        int shard = 7;
        Job a = job(T0 + 100, null, shard);
        Job b = job(T0 + 200, null, shard);
        Job c = job(T0 + 300, null, shard);
        Job other = job(T0 + 150, null, shard + 1);
        jobs.insertAll(List.of(c, a, b, other));
        List<IndexEntry> loaded = attempts.loadDue(page(shard, Cursor.before(T0 + 100, Long.MIN_VALUE), T0 + 300, 10));
        assertThat(loaded).extracting(IndexEntry::jobId).containsExactly(a.id(), b.id());
        assertThat(loaded.get(0).serviceKey()).isEqualTo(app + "/svc");
        assertThat(attempts.loadDue(page(shard, Cursor.START, T0 + 1_000, 1))).hasSize(1);
        attempts.claim(List.of(a.id()), "n1", T0 + 100, T0 + 100);
        assertThat(attempts.findStale(List.of(shard), T0 + 100 + 999, null, Long.MIN_VALUE, 10))
                .isEmpty();
        assertThat(attempts.findStale(List.of(shard), T0 + 100 + 1_000, null, Long.MIN_VALUE, 10))
                .extracting(Job::id)
                .containsExactly(a.id());
    }

    /**
     * The services a read leaves out, or reads alone, on every shard it reads: each shard's part of
     * the statement carries the list (DueRowSelect).
     */
    @Test
    void loadDueLeavesOutTheServicesSkippedOrReadsOnlyThoseAsked() {
        Job a1 = job("svc-a", T0 + 100, null, 3);
        Job b1 = job("svc-b", T0 + 110, null, 3);
        Job c1 = job("svc-c", T0 + 120, null, 3);
        Job a2 = job("svc-a", T0 + 130, null, 4);
        Job b2 = job("svc-b", T0 + 140, null, 4);
        jobs.insertAll(List.of(a1, b1, c1, a2, b2));
        Map<Integer, Cursor> both = Map.of(3, Cursor.START, 4, Cursor.START);
        String a = app + "/svc-a";
        String b = app + "/svc-b";

        assertThat(attempts.loadDue(new DuePage(both, T0 + 1_000, 10, Set.of(a, b))))
                .extracting(IndexEntry::jobId)
                .containsExactly(c1.id());
        assertThat(attempts.loadDue(new DuePage(both, T0 + 1_000, 10, Set.of(a))))
                .extracting(IndexEntry::jobId)
                .containsExactlyInAnyOrder(b1.id(), c1.id(), b2.id());
        assertThat(attempts.loadDue(new DuePage(both, T0 + 1_000, 10, Set.of(), Set.of(a))))
                .extracting(IndexEntry::jobId)
                .containsExactlyInAnyOrder(a1.id(), a2.id());
        assertThat(attempts.loadDue(new DuePage(both, T0 + 1_000, 10, Set.of(a), Set.of(a, b))))
                .as("both lists")
                .extracting(IndexEntry::jobId)
                .containsExactlyInAnyOrder(b1.id(), b2.id());
        assertThat(attempts.loadDue(new DuePage(both, T0 + 1_000, 1, Set.of(a))))
                .as("the limit is per shard, counted after the services left out")
                .extracting(IndexEntry::jobId)
                .containsExactlyInAnyOrder(b1.id(), b2.id());
    }

    private static DuePage page(int shard, Cursor after, long before, int limit) {
        return new DuePage(Map.of(shard, after), before, limit, Set.of());
    }

    @Test
    void managementChangesApplyOnlyFromTheirSourceStates() {
        Job j = job(T0 + 10_000, null, 8);
        jobs.insert(j);
        Job moved = mutations
                .reschedule(j.id(), app, T0 + 20_000, 12, "{\"x\":2}", Map.of("a", "b"), T0)
                .orElseThrow();
        assertThat(moved.fireAt()).isEqualTo(T0 + 20_000);
        assertThat(moved.payload()).isEqualTo("{\"x\":2}");
        assertThat(moved.attributes()).isEqualTo(Map.of("a", "b"));
        assertThat(moved.shard()).isEqualTo(12);
        assertThat(mutations.reschedule(j.id(), "another-app", T0 + 1, null, null, null, T0))
                .isEmpty();
        assertThat(mutations.revive(j.id(), app, T0, 8, T0))
                .as("a DELAYED job cannot be revived")
                .isEmpty();
        Job canceled = mutations.cancel(j.id(), app, () -> T0, SENT).orElseThrow();
        assertThat(canceled.state()).isEqualTo(JobState.CANCELED);
        assertThat(mutations.cancel(j.id(), app, () -> T0, SENT)).isEmpty();
        assertThat(mutations.reschedule(j.id(), app, T0 + 1, null, null, null, T0))
                .isEmpty();
        Job revived = mutations.revive(j.id(), app, T0 + 5, 9, T0 + 1).orElseThrow();
        assertThat(revived.state()).isEqualTo(JobState.DELAYED);
        assertThat(revived.shard()).isEqualTo(9);
        assertThat(revived.dueAt()).isEqualTo(T0 + 5);
        assertThat(revived.budgetBase()).isEqualTo(revived.attempts());
        assertThat(jobs.find(j.id()).orElseThrow().state()).isEqualTo(JobState.DELAYED);
    }

    @Test
    void anAttemptsDeadlineIsRenewedOnlyWhileItIsTheNodesCurrentAttempt() {
        Job j = job(T0, null, 12);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "n1", T0, T0);
        long timeout = jobs.find(j.id()).orElseThrow().timeoutMs();

        assertThat(attempts.renewDeadlines(List.of(new AttemptStore.ClaimedAttempt(j.id(), 1)), "n1", T0 + 500))
                .containsExactly(j.id());
        assertThat(jobs.find(j.id()).orElseThrow().dueAt()).isEqualTo(T0 + 500 + timeout);
        assertThat(attempts.renewDeadlines(List.of(new AttemptStore.ClaimedAttempt(j.id(), 1)), "n2", T0 + 600))
                .as("another node's")
                .isEmpty();
        assertThat(attempts.renewDeadlines(List.of(new AttemptStore.ClaimedAttempt(j.id(), 2)), "n1", T0 + 600))
                .as("another attempt")
                .isEmpty();
        assertThat(jobs.find(j.id()).orElseThrow().dueAt()).isEqualTo(T0 + 500 + timeout);
    }

    @Test
    void anAttemptWithheldByItsHolderIsUndoneByTheCancel() {
        Job j = job(T0, null, 10);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "n1", T0, T0);
        List<String> asked = new ArrayList<>();
        Job canceled = mutations
                .cancel(j.id(), null, () -> T0 + 1, (node, id, attempt) -> {
                    asked.add(node + "/" + id + "/" + attempt);
                    return AttemptHolders.Answer.WITHHELD;
                })
                .orElseThrow();
        assertThat(asked).containsExactly("n1/" + j.id() + "/1");
        assertThat(canceled.state()).isEqualTo(JobState.CANCELED);
        assertThat(canceled.attempts())
                .as("the withheld attempt never happened")
                .isZero();
        assertThat(canceled.lastError()).isEqualTo("canceled");
        assertThat(jobs.executions(j.id()))
                .as("never sent: no attempt in its log")
                .isEmpty();
    }

    @Test
    void aCancelWhoseHolderDoesNotAnswerChangesNothing() {
        Job j = job(T0, null, 10);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "n1", T0, T0);
        assertThatThrownBy(() -> mutations.cancel(j.id(), null, () -> T0 + 1, (node, id, attempt) -> {
                    throw new AttemptHolderUnreachableException(node, id, attempt, 2_000);
                }))
                .isInstanceOf(AttemptHolderUnreachableException.class);
        Job still = jobs.find(j.id()).orElseThrow();
        assertThat(still.state()).isEqualTo(JobState.RUNNING);
        assertThat(still.attempts()).isEqualTo(1);
        assertThat(jobs.executions(j.id())).singleElement().satisfies(e -> assertThat(e.outcome())
                .isNull());
        // and the job stays cancelable once its holder answers
        assertThat(mutations.cancel(j.id(), null, () -> T0 + 2, SENT)).isPresent();
    }

    @Test
    void aCanceledJobIsNotAskedAboutItsAttemptWhenItHasNone() {
        Job j = job(T0 + 60_000, null, 10);
        jobs.insert(j);
        assertThat(mutations
                        .cancel(j.id(), null, () -> T0, (node, id, attempt) -> {
                            throw new AssertionError("a DELAYED job has no attempt to withhold");
                        })
                        .orElseThrow()
                        .lastError())
                .isEqualTo("canceled");
    }

    @Test
    void anAttemptTimedOutElsewhereKeepsItsLogRowWhenItsUnsentRowsAreForgotten() {
        // the sender dropped it unsent after its renewal found that another node had ended it
        Job takenOver = job(T0, null, 11);
        jobs.insert(takenOver);
        attempts.claim(List.of(takenOver.id()), "n1", T0, T0);
        attempts.record(List.of(timedOut(jobs.find(takenOver.id()).orElseThrow(), T0 + 2)), T0 + 2);

        attempts.forgetUnsent(List.of(new AttemptStore.ClaimedAttempt(takenOver.id(), 1)));

        assertThat(jobs.executions(takenOver.id())).singleElement().satisfies(e -> assertThat(e.outcome())
                .isEqualTo(AttemptOutcome.TIMEOUT));
    }

    @Test
    void aRunningJobCanBeCanceledAndItsLateResultChangesNothing() {
        Job j = job(T0, null, 10);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "n1", T0, T0);
        Job canceled = mutations.cancel(j.id(), null, () -> T0 + 1, SENT).orElseThrow();
        assertThat(canceled.state()).isEqualTo(JobState.CANCELED);
        assertThat(canceled.lastError()).startsWith("canceled while attempt 1 was under way on n1");
        attempts.record(
                List.of(new AttemptResult(
                        j.id(), 1, AttemptOutcome.SUCCESS, null, null, T0 + 2, NextStep.finished(), 10, "x")),
                T0 + 2);
        assertThat(jobs.find(j.id()).orElseThrow().state()).isEqualTo(JobState.CANCELED);
        assertThat(jobs.executions(j.id()).get(0).outcome())
                .as("the attempt itself is still logged")
                .isEqualTo(AttemptOutcome.SUCCESS);
    }

    /**
     * A job that ends while a search runs: the search reads the live table, then the backlog, and a
     * job moved between the two reads is in both. Here it is in both at once (the state the two
     * reads can see), and the search lists it once.
     */
    @Test
    void aJobInTheMiddleOfEndingIsListedOnce() throws Exception {
        String bizKey = "mid-move-" + System.nanoTime();
        Job j = job(T0, bizKey, 12);
        jobs.insert(j);
        String cols = "id, app, service, biz_key, shard, state, fire_at, due_at, expire_at, attempts, budget_base,"
                + " max_attempts, timeout_ms, expire_after_ms, payload, attributes, last_error, owner_node,"
                + " claim_token, version, created_at, updated_at";
        try (org.apache.ibatis.session.SqlSession s = db.sessions().openSession(true);
                java.sql.Statement st = s.getConnection().createStatement()) {
            st.executeUpdate("INSERT INTO job_delay_task_backlog (" + cols + ", ended_at) SELECT " + cols + ", " + T0
                    + " FROM job_delay_task WHERE id = " + j.id());
        }
        JobPage page = jobs.search(new JobQuery(app, bizKey, null, null, null, null, 50, null));
        assertThat(page.items().stream().filter(x -> x.id() == j.id()).count())
                .as("listings of a job found live and in the backlog")
                .isEqualTo(1);
    }

    @Test
    void searchPagesThroughLiveThenFinalJobs() {
        String service = "search" + System.nanoTime() % 100_000;
        List<Long> expected = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Job j = job(service, T0, null, 11);
            jobs.insert(j);
            expected.add(j.id());
            if (i % 2 == 0) {
                mutations.cancel(j.id(), app, () -> T0, SENT);
            }
        }
        Set<Long> seen = new HashSet<>();
        String cursor = null;
        int pages = 0;
        do {
            JobPage page = jobs.search(new JobQuery(app, null, null, service, null, null, 2, cursor));
            page.items()
                    .forEach(
                            j -> assertThat(seen.add(j.id())).as("no job twice").isTrue());
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null && pages < 10);
        assertThat(seen).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(jobs.search(new JobQuery(app, null, JobState.CANCELED, service, null, null, 50, null))
                        .items())
                .hasSize(3);
        assertThat(jobs.countLive(app)).anySatisfy(c -> {
            assertThat(c.service()).isEqualTo(service);
            assertThat(c.count()).isEqualTo(2);
        });
    }

    /**
     * With a fire-time range the search pages in fire-time order (then id) through the fire-time
     * index, live jobs first, then final ones, each job once, jobs outside the range never; ties
     * of fire time are split by id across pages. A cursor from a search without the range is
     * refused rather than misread.
     */
    @Test
    void searchByFireTimePagesInFireTimeOrder() {
        String service = "byfire" + System.nanoTime() % 100_000;
        long[] fireTimes = {T0 + 500, T0 + 100, T0 + 300, T0 + 300, T0 + 300, T0 + 900, T0 + 200, T0 + 5_000};
        List<Job> inserted = new ArrayList<>();
        for (int i = 0; i < fireTimes.length; i++) {
            Job j = job(service, fireTimes[i], null, 3);
            jobs.insert(j);
            inserted.add(j);
            if (i % 3 == 0) {
                mutations.cancel(j.id(), app, () -> T0, SENT); // to the backlog
            }
        }
        List<Long> liveOrder = new ArrayList<>();
        List<Long> finalOrder = new ArrayList<>();
        inserted.stream()
                .filter(j -> j.fireAt() < T0 + 1_000)
                .sorted(java.util.Comparator.comparingLong(Job::fireAt).thenComparingLong(Job::id))
                .forEach(j -> (inserted.indexOf(j) % 3 == 0 ? finalOrder : liveOrder).add(j.id()));
        List<Long> expected = new ArrayList<>(liveOrder);
        expected.addAll(finalOrder);

        List<Long> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            JobPage page = jobs.search(new JobQuery(app, null, null, service, T0, T0 + 1_000, 2, cursor));
            page.items().forEach(j -> seen.add(j.id()));
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null && pages < 20);
        assertThat(seen).as("live by fire time, then final by fire time").containsExactlyElementsOf(expected);

        String byId = jobs.search(new JobQuery(app, null, null, service, null, null, 2, null))
                .nextCursor();
        assertThatThrownBy(() -> jobs.search(new JobQuery(app, null, null, service, T0, T0 + 1_000, 2, byId)))
                .isInstanceOf(dev.hourglass.api.HourglassException.class)
                .hasMessageContaining("cursor");
    }

    /** RUNNING jobs are found through the due-time index, in every shard, and paged by id. */
    @Test
    void searchOfRunningJobsFindsEveryShardsClaims() {
        String service = "running" + System.nanoTime() % 100_000;
        List<Long> claimed = new ArrayList<>();
        for (int shard : new int[] {0, 5, 63, 5, 17}) {
            Job j = job(service, T0, null, shard);
            jobs.insert(j);
            if (shard != 17) {
                assertThat(attempts.claim(List.of(j.id()), "n1", T0 + 1, T0 + 1).claimed())
                        .hasSize(1);
                claimed.add(j.id());
            }
        }
        List<Long> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            JobPage page = jobs.search(new JobQuery(app, null, JobState.RUNNING, service, null, null, 3, cursor));
            page.items().forEach(j -> {
                assertThat(j.state()).isEqualTo(JobState.RUNNING);
                seen.add(j.id());
            });
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null && pages < 10);
        assertThat(seen).containsExactlyElementsOf(claimed.stream().sorted().toList());
        assertThat(jobs.search(new JobQuery(app, null, JobState.DELAYED, service, null, null, 50, null))
                        .items())
                .hasSize(1);
    }

    /** The live counts (folded counters plus deltas) as a map, and the same by a scan of the table. */
    private Map<String, Long> countedLive() {
        Map<String, Long> m = new java.util.TreeMap<>();
        jobs.countLive(null).forEach(c -> m.put(c.app() + "/" + c.service() + "/" + c.state(), c.count()));
        return m;
    }

    private Map<String, Long> scannedLive() {
        Map<String, Long> m = new java.util.TreeMap<>();
        try (var s = db.sessions().openSession(true)) {
            s.getMapper(dev.hourglass.node.store.mybatis.JobMapper.class)
                    .countLiveByScan()
                    .forEach(c -> m.put(c.app + "/" + c.service + "/" + c.state, c.count));
        }
        return m;
    }

    private long counted(String state) {
        return countedLive().getOrDefault(app + "/svc/" + state, 0L);
    }

    @Test
    void liveCountsFollowEveryKindOfChange() {
        LiveCountFolder folder = new LiveCountFolder(db.sessions(), 1_000);
        folder.foldAll();
        long delayed0 = counted("DELAYED");
        long running0 = counted("RUNNING");
        List<Job> batch = IntStream.range(0, 6).mapToObj(i -> job(T0, null, 9)).toList();
        Job expiring = withExpiry(job(T0, null, 9), T0 + 100);
        jobs.insertAll(batch);
        jobs.insert(expiring);
        assertThat(counted("DELAYED")).isEqualTo(delayed0 + 7);
        Job a = batch.get(0), b = batch.get(1), c = batch.get(2), d = batch.get(3), e = batch.get(4);

        attempts.claim(List.of(a.id(), b.id(), c.id(), d.id()), "n1", T0, T0);
        assertThat(counted("RUNNING")).isEqualTo(running0 + 4);
        assertThat(counted("DELAYED")).isEqualTo(delayed0 + 3);
        folder.foldAll(); // half the history folded, half still deltas
        attempts.record(
                List.of(
                        new AttemptResult(
                                a.id(),
                                1,
                                AttemptOutcome.RETRY,
                                "HTTP 500",
                                null,
                                T0 + 5,
                                NextStep.retryAt(T0 + 500),
                                9,
                                "x/svc"),
                        new AttemptResult(
                                b.id(), 1, AttemptOutcome.SUCCESS, null, null, T0 + 5, NextStep.finished(), 9, "x/svc"),
                        // stale: attempt 2 of c was never claimed, so it changes nothing
                        new AttemptResult(
                                c.id(), 2, AttemptOutcome.SUCCESS, null, null, T0 + 5, NextStep.finished(), 9, "x/svc"),
                        // twice the same result: the second finds the job gone
                        new AttemptResult(
                                b.id(),
                                1,
                                AttemptOutcome.SUCCESS,
                                null,
                                null,
                                T0 + 5,
                                NextStep.finished(),
                                9,
                                "x/svc")),
                T0 + 5);
        assertThat(counted("RUNNING")).isEqualTo(running0 + 2); // c, d
        assertThat(counted("DELAYED")).isEqualTo(delayed0 + 4); // a again, e, f, expiring
        assertThat(mutations.cancel(c.id(), app, () -> T0 + 6, SENT)).isPresent(); // RUNNING
        assertThat(mutations.cancel(e.id(), app, () -> T0 + 6, SENT)).isPresent(); // DELAYED
        assertThat(mutations.cancel(e.id(), app, () -> T0 + 6, SENT)).isEmpty(); // not live any more
        assertThat(attempts.claim(List.of(expiring.id()), "n1", T0 + 101, T0 + 101)
                        .expired())
                .containsExactly(expiring.id());
        assertThat(mutations.revive(e.id(), app, T0 + 1_000, 9, T0 + 7)).isPresent(); // canceled
        assertThat(attempts.unclaim(List.of(new AttemptStore.ClaimedAttempt(d.id(), 1)), "n1", T0 + 8))
                .isEqualTo(1);
        assertThat(counted("RUNNING")).isEqualTo(running0);
        assertThat(counted("DELAYED")).isEqualTo(delayed0 + 4); // a, d, e, f
        assertThat(countedLive()).isEqualTo(scannedLive());
        folder.foldAll();
        assertThat(countedLive()).as("after a fold").isEqualTo(scannedLive());
    }

    @Test
    void liveCountsStayExactUnderConcurrentClaimsResultsAndFolds() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(testsConcurrency());
        List<Job> batch =
                IntStream.range(0, 400).mapToObj(i -> job(T0, null, 10)).toList();
        jobs.insertAll(batch);
        List<Long> ids = batch.stream().map(Job::id).toList();
        ExecutorService pool = Executors.newFixedThreadPool(5);
        java.util.concurrent.atomic.AtomicBoolean working = new java.util.concurrent.atomic.AtomicBoolean(true);
        try {
            Future<?> folding = pool.submit(() -> {
                LiveCountFolder folder = new LiveCountFolder(db.sessions(), 1_000);
                while (working.get()) {
                    folder.foldAll();
                }
                return null;
            });
            List<Callable<Void>> workers = new ArrayList<>();
            for (int n = 0; n < 4; n++) {
                String node = "n" + n;
                List<Long> shuffled = new ArrayList<>(ids);
                Collections.shuffle(shuffled);
                workers.add(() -> {
                    MyBatisAttemptStore store = new MyBatisAttemptStore(db.sessions(), node, new SqlFailures());
                    for (int i = 0; i < shuffled.size(); i += 20) {
                        List<Job> won = store.claim(shuffled.subList(i, i + 20), node, T0 + 1, T0 + 1)
                                .claimed();
                        List<AttemptResult> results = new ArrayList<>();
                        for (Job j : won) {
                            // a third retried, a third finished, a third left running
                            switch ((int) (j.id() % 3)) {
                                case 0 ->
                                    results.add(new AttemptResult(
                                            j.id(),
                                            j.attempts(),
                                            AttemptOutcome.RETRY,
                                            "again",
                                            null,
                                            T0 + 2,
                                            NextStep.retryAt(T0 + 1),
                                            10,
                                            "x/svc"));
                                case 1 ->
                                    results.add(new AttemptResult(
                                            j.id(),
                                            j.attempts(),
                                            AttemptOutcome.SUCCESS,
                                            null,
                                            null,
                                            T0 + 2,
                                            NextStep.finished(),
                                            10,
                                            "x/svc"));
                                default -> {}
                            }
                        }
                        store.record(results, T0 + 2);
                        if (i % 100 == 0) {
                            mutations.cancel(shuffled.get(i), app, () -> T0 + 2, SENT); // races the claims of others
                        }
                    }
                    return null;
                });
            }
            for (Future<Void> f : pool.invokeAll(workers)) {
                f.get();
            }
            working.set(false);
            folding.get();
            assertThat(countedLive()).isEqualTo(scannedLive());
        } finally {
            working.set(false);
            pool.shutdownNow();
        }
    }

    @Test
    void alertsOpenOncePerConditionAndTheLastNotificationIsTheCurrentState() {
        var alerts = new dev.hourglass.node.store.mybatis.MyBatisAlertStore(db.sessions());
        String svc = "alerted" + System.nanoTime() % 100_000;
        var firing = new dev.hourglass.node.core.alert.Alert(
                0,
                app,
                svc,
                dev.hourglass.node.core.alert.AlertKind.FAILED_JOBS,
                dev.hourglass.node.core.alert.Alert.State.FIRING,
                3,
                5,
                "5 jobs FAILED",
                T0,
                null,
                null,
                null,
                "http://127.0.0.1/hook",
                null,
                0,
                T0,
                null);
        assertThat(alerts.open(firing)).isTrue();
        assertThat(alerts.open(firing))
                .as("one open alert per app, service and kind")
                .isFalse();
        var open = alerts.firing().stream().filter(a -> a.service().equals(svc)).toList();
        assertThat(open).hasSize(1);
        long id = open.get(0).id();
        assertThat(alerts.takeNotification(id, T0, T0 + 15_000)).isTrue();
        assertThat(alerts.takeNotification(id, T0, T0 + 15_000))
                .as("taken once")
                .isFalse();
        // while the FIRING send is under way the alert resolves, and RESOLVED is sent and recorded
        alerts.resolve(id, T0 + 1_000);
        alerts.notified(id, dev.hourglass.node.core.alert.Alert.State.RESOLVED, T0 + 1_100);
        assertThat(alerts.owedNotifications(T0 + 2_000, 100)).noneMatch(a -> a.id() == id);
        // then the slow FIRING send ends: RESOLVED is owed again, to be the last the webhook hears
        alerts.notified(id, dev.hourglass.node.core.alert.Alert.State.FIRING, T0 + 1_200);
        assertThat(alerts.owedNotifications(T0 + 2_000, 100))
                .filteredOn(a -> a.id() == id)
                .singleElement()
                .satisfies(a -> assertThat(a.state()).isEqualTo(dev.hourglass.node.core.alert.Alert.State.RESOLVED));
        assertThat(alerts.open(firing))
                .as("after it resolved, the condition may fire again")
                .isTrue();
    }

    @Test
    void theOverdueScanSaysWhenAShardHadMoreThanItRead() {
        long due = T0 - 3_600_000;
        jobs.insertAll(
                IntStream.range(0, 3).mapToObj(i -> job(due + i, null, 11)).toList());
        var alerts = new dev.hourglass.node.store.mybatis.MyBatisAlertStore(db.sessions());
        var two = alerts.oldestOverdue(64, T0, 2);
        assertThat(two.complete()).isFalse();
        assertThat(two.oldest()).containsEntry(app + "/svc", due);
        var all = alerts.oldestOverdue(64, due + 10, 1_000);
        assertThat(all.complete()).isTrue();
        assertThat(all.oldest()).containsEntry(app + "/svc", due);
    }

    /**
     * Jobs carry their service's kind (V15's {@code pulled}): the store refuses a change between
     * PULL and a pushed protocol itself, under the service row's lock, not only the catalog.
     */
    @Test
    void theStoreRefusesToChangeAServiceBetweenPullAndPushed() {
        services.put(serviceOfKind("kinds", Protocol.PULL));
        assertThatThrownBy(() -> services.put(serviceOfKind("kinds", Protocol.HTTP)))
                .isInstanceOf(dev.hourglass.api.HourglassException.class)
                .hasMessageContaining("cannot change between PULL and a pushed protocol");
        assertThat(services.find(kindsApp(), "kinds").orElseThrow().protocol()).isEqualTo(Protocol.PULL);
        services.put(serviceOfKind("kinds-pushed", Protocol.HTTP));
        assertThat(services.put(serviceOfKind("kinds-pushed", Protocol.KAFKA)).protocol())
                .as("between pushed protocols")
                .isEqualTo(Protocol.KAFKA);
    }

    /**
     * A delete of a service waits for a job of it being inserted and not yet committed (a submit
     * under way), then finds it: the service stays. Without the wait, the service could be made
     * again of the other kind under a job flagged with the old one.
     */
    @Test
    void aServiceIsNotDeletedUnderAJobBeingInserted() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(testsConcurrency());
        services.put(serviceOfKind("deleting", Protocol.PULL));
        long id = IDS.incrementAndGet() * 1000;
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (org.apache.ibatis.session.SqlSession submit = db.sessions().openSession(false);
                java.sql.Statement st = submit.getConnection().createStatement()) {
            st.executeUpdate("INSERT INTO job_delay_task (id, app, service, shard, state, fire_at, due_at, attempts,"
                    + " budget_base, max_attempts, timeout_ms, payload, version, created_at, updated_at, pulled)"
                    + " VALUES (" + id + ", '" + kindsApp() + "', 'deleting', 5, 'DELAYED', "
                    + (T0 + 60_000) + ", " + (T0 + 60_000) + ", 0, 0, 3, 1000, '{}', 0, " + T0 + ", " + T0 + ", TRUE)");
            Future<Boolean> delete = pool.submit(() -> services.deleteIfIdle(kindsApp(), "deleting"));
            Thread.sleep(300);
            assertThat(delete).as("waits for the insert's transaction").isNotDone();
            submit.getConnection().commit(); // MyBatis would not: it wrote nothing itself
            assertThat(delete.get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .as("then finds its job")
                    .isFalse();
        } finally {
            pool.shutdownNow();
        }
        assertThat(services.find(kindsApp(), "deleting")).isPresent();
        sql("DELETE FROM job_delay_task WHERE id = " + id);
    }

    /**
     * A job left from a service's earlier self (its insert read the kind before the service was
     * deleted) takes the kind of the service made again under its name, so a pushed service's job
     * is never left flagged PULL, out of the engine's reads.
     */
    @Test
    void aServiceMadeAgainGivesItsKindToJobsLeftUnderItsName() throws Exception {
        long id = IDS.incrementAndGet() * 1000;
        sql("INSERT INTO job_delay_task (id, app, service, shard, state, fire_at, due_at, attempts, budget_base,"
                + " max_attempts, timeout_ms, payload, version, created_at, updated_at, pulled) VALUES (" + id
                + ", '" + kindsApp() + "', 'reborn', 6, 'DELAYED', " + T0 + ", " + T0 + ", 0, 0, 3, 1000, '{}', 0, "
                + T0
                + ", " + T0 + ", TRUE)");
        DuePage shard6 = new DuePage(Map.of(6, Cursor.START), T0 + 1, 10, Set.of());
        assertThat(attempts.loadDue(shard6)).extracting(IndexEntry::jobId).doesNotContain(id);
        services.put(serviceOfKind("reborn", Protocol.HTTP));
        assertThat(attempts.loadDue(shard6))
                .as("read by the engine once its service is pushed")
                .extracting(IndexEntry::jobId)
                .contains(id);
        sql("DELETE FROM job_delay_task WHERE id = " + id); // out of other tests' reads of shard 6
    }

    /** The services of these tests' own app: servicesAndTokens lists the others'. */
    private String kindsApp() {
        return app + "-kinds";
    }

    private ServiceDefinition serviceOfKind(String name, Protocol protocol) {
        return new ServiceDefinition(
                kindsApp(),
                name,
                protocol,
                protocol == Protocol.KAFKA ? "topic-" + name : null,
                protocol == Protocol.HTTP ? "http://127.0.0.1/cb" : null,
                null,
                null,
                4,
                2_000,
                new Backoff(10, 1.5, 100),
                AckMode.CONSUMER,
                7,
                null,
                null,
                T0,
                T0);
    }

    @Test
    void servicesAndTokens() {
        ServiceDefinition s = new ServiceDefinition(
                app,
                "orders",
                Protocol.HTTP,
                null,
                "http://127.0.0.1/cb",
                null,
                null,
                4,
                2_000,
                new Backoff(10, 1.5, 100),
                AckMode.CONSUMER,
                7,
                "s".repeat(32),
                null,
                T0,
                T0);
        services.put(s);
        assertThat(services.find(app, "orders")).contains(s);
        ServiceDefinition changed = new ServiceDefinition(
                app,
                "orders",
                Protocol.HTTP,
                null,
                "http://127.0.0.1/v2",
                null,
                null,
                4,
                2_000,
                new Backoff(10, 1.5, 100),
                AckMode.AUTO,
                7,
                "s".repeat(32),
                null,
                T0 + 5,
                T0 + 5);
        assertThat(services.put(changed).createdAt())
                .as("replace keeps createdAt")
                .isEqualTo(T0);
        assertThat(services.list(app)).hasSize(1);
        assertThat(services.deleteIfIdle(app, "orders")).isTrue();
        assertThat(services.find(app, "orders")).isEmpty();

        assertThat(apps.createApp(app, T0)).isTrue();
        assertThat(apps.createApp(app, T0)).isFalse();
        apps.addToken(app, "tid-" + app, "h".repeat(63) + "1", T0);
        assertThat(apps.appOfToken("h".repeat(63) + "1")).contains(app);
        assertThat(apps.revokeToken(app, "tid-" + app, T0)).isTrue();
        assertThat(apps.appOfToken("h".repeat(63) + "1")).isEmpty();
    }

    @Test
    void targetGrantsAreReplacedWholeAndKeepCase() {
        String owner = app + "-grants";
        assertThat(apps.createApp(owner, T0)).isTrue();
        assertThat(apps.targets(owner)).isEqualTo(TargetGrants.NONE);
        apps.replaceTargets(owner, TargetGrants.of(List.of("audit", "Audit", "billing.*"), List.of("g-*"), true));
        assertThat(apps.targets(owner))
                .as("topics are case-sensitive: two patterns")
                .isEqualTo(new TargetGrants(List.of("Audit", "audit", "billing.*"), List.of("g-*"), true));
        assertThat(apps.allTargets()).containsKey(owner);
        apps.replaceTargets(owner, TargetGrants.of(null, List.of("other"), false));
        assertThat(apps.targets(owner)).isEqualTo(new TargetGrants(List.of(), List.of("other"), false));
        apps.replaceTargets(owner, TargetGrants.NONE);
        assertThat(apps.targets(owner)).isEqualTo(TargetGrants.NONE);
        assertThat(apps.allTargets()).doesNotContainKey(owner);
    }
}
