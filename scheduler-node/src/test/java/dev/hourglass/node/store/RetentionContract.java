package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Execution;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.NextStep;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.core.port.RetentionStore;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.store.mybatis.MyBatisAttemptStore;
import dev.hourglass.node.store.mybatis.MyBatisJobMutations;
import dev.hourglass.node.store.mybatis.MyBatisJobRepository;
import dev.hourglass.node.store.mybatis.MyBatisRetentionStore;
import dev.hourglass.node.store.mybatis.SqlFailures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ibatis.session.SqlSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Retention's storage on every supported database: the real MyBatis adapters and migrations.
 * Every scenario starts from empty job tables (retention deletes by time, across apps).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RetentionContract {
    protected static final long OLD = 1_700_000_000_000L;
    protected static final long CUTOFF = OLD + 1_000_000;
    protected static final long RECENT = CUTOFF + 1_000_000;
    private static final AtomicLong IDS = new AtomicLong(5_000);
    protected static final String APP = "shop";

    protected Database db;
    protected MyBatisJobRepository jobs;
    protected MyBatisAttemptStore attempts;
    protected MyBatisJobMutations mutations;
    protected MyBatisRetentionStore retention;

    protected abstract Database open();

    @BeforeAll
    void openDatabase() {
        db = open();
        jobs = new MyBatisJobRepository(db.sessions(), new SqlFailures());
        attempts = new MyBatisAttemptStore(db.sessions(), "n1", new SqlFailures());
        mutations = new MyBatisJobMutations(db.sessions(), "n1");
        retention = new MyBatisRetentionStore(db.sessions());
    }

    @AfterAll
    void closeDatabase() {
        db.close();
    }

    @BeforeEach
    void emptyJobTables() {
        sql(
                "DELETE FROM job_delay_task",
                "DELETE FROM job_delay_task_backlog",
                "DELETE FROM job_delay_task_execlog",
                "DELETE FROM hg_biz_key");
    }

    @Test
    void finishedAttemptsOlderThanTheCutoffGoNewerAndOpenOnesStay() {
        Job old = ended(OLD, "old");
        Job recent = ended(RECENT, "recent");
        // a live job whose first attempt finished long ago and whose second is under way
        Job retrying = job(OLD, null);
        jobs.insert(retrying);
        attempts.claim(List.of(retrying.id()), "n1", OLD, OLD);
        record(retrying.id(), 1, AttemptOutcome.RETRY, NextStep.retryAt(OLD + 100), OLD + 10);
        attempts.claim(List.of(retrying.id()), "n1", OLD + 100, OLD + 100);
        // an attempt under way for ever (its node died): it has no log row until it ends (the row
        // is written at its result), so the age sweep cannot take it; the job's list of
        // attempts shows it from the live row
        Job stuck = job(OLD, null);
        jobs.insert(stuck);
        attempts.claim(List.of(stuck.id()), "n1", OLD, OLD);
        // a job canceled while its attempt was under way: that attempt's log row is written open
        // (its result, if one comes, closes it); a row without an end is never old
        Job canceledUnderWay = job(OLD, null);
        jobs.insert(canceledUnderWay);
        attempts.claim(List.of(canceledUnderWay.id()), "n1", OLD, OLD);
        mutations.cancel(
                canceledUnderWay.id(), APP, () -> OLD + 1, (node, id, attempt) -> AttemptHolders.Answer.UNDER_WAY);
        assertThat(longs(
                        "SELECT attempt FROM job_delay_task_execlog WHERE job_id = ? AND outcome IS NULL",
                        canceledUnderWay.id()))
                .as("the cancel's open row")
                .containsExactly(1L);

        int deleted = retention.deleteExecutionsFinishedBefore(CUTOFF, 1_000);

        assertThat(deleted).isEqualTo(2);
        assertThat(attemptNumbers(old.id())).as("finished before the cutoff").isEmpty();
        assertThat(attemptNumbers(recent.id())).containsExactly(1);
        assertThat(attemptNumbers(retrying.id()))
                .as("a live job loses its old finished attempts, keeps the open one")
                .containsExactly(2);
        assertThat(jobs.find(retrying.id()).orElseThrow().attempts())
                .as("the job itself still counts its attempts")
                .isEqualTo(2);
        assertThat(longs("SELECT attempt FROM job_delay_task_execlog WHERE job_id = ?", stuck.id()))
                .as("an attempt under way has no log row")
                .isEmpty();
        assertThat(attemptNumbers(stuck.id()))
                .as("the attempt under way, read from the live row")
                .containsExactly(1);
        assertThat(attemptNumbers(canceledUnderWay.id()))
                .as("the open row a cancel wrote")
                .containsExactly(1);
        assertThat(jobs.find(old.id()))
                .as("the job stays until the backlog's retention")
                .isPresent();
        assertThat(retention.deleteExecutionsFinishedBefore(CUTOFF, 1_000)).isZero();
    }

    @Test
    void executionLogBatchesAreBoundedOldestFirst() {
        List<Job> old = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            old.add(ended(OLD + i, null));
        }
        assertThat(retention.deleteExecutionsFinishedBefore(CUTOFF, 3)).isEqualTo(3);
        assertThat(attemptNumbers(old.get(0).id())).as("the oldest go first").isEmpty();
        assertThat(attemptNumbers(old.get(6).id())).containsExactly(1);
        assertThat(retention.deleteExecutionsFinishedBefore(CUTOFF, 3)).isEqualTo(3);
        assertThat(retention.deleteExecutionsFinishedBefore(CUTOFF, 3)).isEqualTo(1);
        assertThat(retention.deleteExecutionsFinishedBefore(CUTOFF, 3)).isZero();
    }

    @Test
    void finalJobsGoWithTheirAttemptsAndTheirBizKeys() {
        Job finished = ended(OLD, "order-1");
        Job canceledWhileRunning = job(OLD, "order-2");
        jobs.insert(canceledWhileRunning); // takes its bizKey in hg_biz_key
        attempts.claim(List.of(canceledWhileRunning.id()), "n1", OLD, OLD);
        mutations.cancel(
                canceledWhileRunning.id(), APP, () -> OLD + 1, (node, id, attempt) -> AttemptHolders.Answer.UNDER_WAY);
        Job endedRecently = ended(RECENT, "order-3");
        Job live = job(RECENT + 60_000, "order-4");
        jobs.insert(live);

        RetentionStore.Purged purged = retention.deleteFinalJobsEndedBefore(CUTOFF, 1_000);

        assertThat(purged).isEqualTo(new RetentionStore.Purged(2, 2, 2));
        for (Job gone : List.of(finished, canceledWhileRunning)) {
            assertThat(jobs.find(gone.id())).isEmpty();
            assertThat(attemptNumbers(gone.id()))
                    .as("its attempts go with it, even one a cancel left open")
                    .isEmpty();
            assertThat(bizKeyOwner(gone.bizKey()))
                    .as("its bizKey is free again")
                    .isNull();
            assertThat(jobs.findByBizKey(APP, gone.bizKey())).isEmpty();
        }
        assertThat(jobs.find(endedRecently.id()).orElseThrow().state()).isEqualTo(JobState.FINISHED);
        assertThat(attemptNumbers(endedRecently.id())).containsExactly(1);
        assertThat(bizKeyOwner("order-3")).isEqualTo(endedRecently.id());
        assertThat(jobs.find(live.id())).isPresent();
        assertThat(bizKeyOwner("order-4")).isEqualTo(live.id());
    }

    @Test
    void backlogBatchesAreBoundedOldestFirst() {
        List<Job> old = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            old.add(ended(OLD + i, "key-" + i));
        }
        assertThat(retention.deleteFinalJobsEndedBefore(CUTOFF, 2).jobs()).isEqualTo(2);
        assertThat(jobs.find(old.get(0).id())).isEmpty();
        assertThat(jobs.find(old.get(4).id())).isPresent();
        assertThat(bizKeyOwner("key-4")).isEqualTo(old.get(4).id());
        assertThat(retention.deleteFinalJobsEndedBefore(CUTOFF, 2).jobs()).isEqualTo(2);
        assertThat(retention.deleteFinalJobsEndedBefore(CUTOFF, 2)).isEqualTo(new RetentionStore.Purged(1, 1, 1));
        assertThat(retention.deleteFinalJobsEndedBefore(CUTOFF, 2)).isEqualTo(RetentionStore.Purged.NOTHING);
    }

    @Test
    void aJobRetriedBackToLifeIsNotTouched() {
        Job failed = failed(OLD, "revived");
        assertThat(mutations.revive(failed.id(), APP, RECENT, 3, RECENT)).isPresent();
        assertThat(retention.deleteFinalJobsEndedBefore(CUTOFF, 1_000)).isEqualTo(RetentionStore.Purged.NOTHING);
        assertThat(jobs.find(failed.id()).orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(bizKeyOwner("revived")).isEqualTo(failed.id());
    }

    // ---- fixtures --------------------------------------------------------------------------------

    protected Job job(long fireAt, String bizKey) {
        return new Job(
                IDS.incrementAndGet(),
                APP,
                "svc",
                bizKey,
                1,
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
                Map.of(),
                null,
                null,
                0,
                fireAt,
                fireAt);
    }

    /** A job delivered at {@code at} and FINISHED then: in the backlog, one finished attempt. */
    protected Job ended(long at, String bizKey) {
        Job j = job(at, bizKey);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "n1", at, at);
        record(j.id(), 1, AttemptOutcome.SUCCESS, NextStep.finished(), at);
        return j;
    }

    /** A job whose only attempt was refused at {@code at}: FAILED, in the backlog. */
    protected Job failed(long at, String bizKey) {
        Job j = job(at, bizKey);
        jobs.insert(j);
        attempts.claim(List.of(j.id()), "n1", at, at);
        record(j.id(), 1, AttemptOutcome.FAIL, NextStep.failed(), at);
        return j;
    }

    private void record(long jobId, int attempt, AttemptOutcome outcome, NextStep next, long at) {
        attempts.record(List.of(new AttemptResult(jobId, attempt, outcome, null, null, at, next, 1, APP + "/svc")), at);
    }

    protected Long bizKeyOwner(String bizKey) {
        List<Long> owners = longs("SELECT job_id FROM hg_biz_key WHERE app = ? AND biz_key = ?", APP, bizKey);
        return owners.isEmpty() ? null : owners.get(0);
    }

    /** The job's attempts as its execution log shows them: the log's rows and the attempt in flight. */
    protected List<Integer> attemptNumbers(long jobId) {
        return jobs.executions(jobId).stream().map(Execution::attempt).toList();
    }

    protected void sql(String... statements) {
        try (SqlSession s = db.sessions().openSession(true);
                Statement st = s.getConnection().createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    protected void update(String sql, Object... args) {
        try (SqlSession s = db.sessions().openSession(true);
                PreparedStatement ps = s.getConnection().prepareStatement(sql)) {
            bind(ps, args);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    protected List<Long> longs(String sql, Object... args) {
        try (SqlSession s = db.sessions().openSession(true)) {
            return longs(s.getConnection(), sql, args);
        }
    }

    protected static List<Long> longs(Connection c, String sql, Object... args) {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            List<Long> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
    }
}
