package dev.hourglass.node.manage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.JobReads;
import dev.hourglass.node.core.port.JobWrites.Inserted;
import dev.hourglass.node.core.port.StoreContendedException;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.store.mybatis.MyBatisJobRepository;
import dev.hourglass.node.store.mybatis.SqlFailures;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit on the real store (embedded MariaDB): a group of sixteen submits in which one row
 * makes the database fail in the middle of the multi-row insert writes nothing of that
 * transaction; then only that submit's caller gets an error, the others are stored, each once, and
 * the live counts and the bizKey registry agree with the rows. Callers of one group sharing a
 * bizKey get one job.
 */
@RunsAlongside
class GroupCommitIT {
    static final AtomicLong IDS = new AtomicLong(System.nanoTime() % 1_000_000 * 1_000);

    String url;
    Database db;
    MyBatisJobRepository jobs;
    GroupCommit<Job, Inserted> groups;
    final AtomicInteger transactions = new AtomicInteger();
    final CountDownLatch firstEntered = new CountDownLatch(1);
    final CountDownLatch releaseFirst = new CountDownLatch(1);
    final ExecutorService callers = Executors.newCachedThreadPool();

    @BeforeEach
    void open() {
        url = EmbeddedMariaDb.newDatabase();
        writeTo(new Database(url, "root", "", 8));
    }

    /** One writer on {@code database}, its first transaction held until the rest are queued behind it. */
    private void writeTo(Database database) {
        db = database;
        jobs = new MyBatisJobRepository(db.sessions(), new SqlFailures());
        groups = GroupCommit.ofSubmits(
                        batch -> {
                            if (transactions.incrementAndGet() == 1) {
                                firstEntered.countDown();
                                try {
                                    // released by the test (or its @AfterEach); 120 s only bounds
                                    // a hang: a shorter hold could let the queued callers through
                                    // early in a JVM short of CPU (README, "Tests")
                                    releaseFirst.await(120, TimeUnit.SECONDS);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            }
                            return jobs.insertAll(batch);
                        },
                        new GroupCommit.Settings(1, 256))
                .start();
    }

    @AfterEach
    void close() {
        releaseFirst.countDown();
        groups.close();
        callers.shutdownNow();
        db.close();
    }

    private static Job job(String bizKey, String payload) {
        return new Job(
                IDS.incrementAndGet(),
                "shop",
                "close",
                bizKey,
                3,
                JobState.DELAYED,
                4_000_000_000_000L,
                4_000_000_000_000L,
                null,
                0,
                0,
                5,
                5_000,
                null,
                payload,
                Map.of(),
                null,
                null,
                0,
                1,
                1);
    }

    private CompletableFuture<Inserted> submit(Job job) {
        return CompletableFuture.supplyAsync(() -> groups.write(job), callers);
    }

    /** A first submit's commit under way, {@code queued} behind it; then the writer goes on. */
    private List<CompletableFuture<Inserted>> asOneGroupBehindAFirst(List<Job> queued) throws InterruptedException {
        List<CompletableFuture<Inserted>> answers = new ArrayList<>();
        answers.add(submit(job("first", "{}")));
        assertThat(firstEntered.await(10, TimeUnit.SECONDS)).isTrue();
        queued.forEach(j -> answers.add(submit(j)));
        await().atMost(Duration.ofSeconds(60)).until(() -> groups.queued() == queued.size());
        releaseFirst.countDown();
        return answers;
    }

    private long count(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "root", "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "root", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Test
    void aRowTheDatabaseRefusesMidGroupFailsOnlyItsCallerAndNothingIsHalfWritten() throws Exception {
        // a data error of one row (SQLState 22: what a value the column cannot hold raises); the
        // MariaDB driver reports a user-defined state such as 45000 as a connection failure
        execute("CREATE TRIGGER hg_test_poison BEFORE INSERT ON job_delay_task FOR EACH ROW "
                + "BEGIN IF NEW.payload = '\"poison\"' THEN "
                + "SIGNAL SQLSTATE '22001' SET MESSAGE_TEXT = 'poison row refused'; END IF; END");
        List<Job> queued = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            // the 9th row fails after eight rows of the same statement went in
            queued.add(job("k" + i, i == 8 ? "\"poison\"" : "{\"i\":" + i + "}"));
        }
        List<CompletableFuture<Inserted>> answers = asOneGroupBehindAFirst(queued);
        Set<Long> stored = new HashSet<>();
        for (int i = 0; i < answers.size(); i++) {
            if (i == 9) { // queued.get(8)
                CompletableFuture<Inserted> poison = answers.get(i);
                ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                        ExecutionException.class, () -> poison.get(60, TimeUnit.SECONDS));
                assertThat(e.getCause()).hasMessageContaining("poison row refused");
            } else {
                Inserted in = answers.get(i).get(60, TimeUnit.SECONDS);
                assertThat(in.created()).isTrue();
                stored.add(in.job().id());
            }
        }
        assertThat(stored).hasSize(16);
        assertThat(transactions.get())
                .as("the first, the group of 16 (rolled back), then each of the 16 alone")
                .isEqualTo(18);
        assertThat(count("SELECT COUNT(*) FROM job_delay_task")).isEqualTo(16);
        assertThat(count("SELECT COUNT(*) FROM job_delay_task WHERE payload = '\"poison\"'"))
                .isZero();
        assertThat(count("SELECT COUNT(*) FROM hg_biz_key"))
                .as("the refused job's bizKey is free")
                .isEqualTo(16);
        assertThat(count("SELECT COUNT(*) FROM hg_biz_key WHERE biz_key = 'k8'"))
                .isZero();
        long live = jobs.countLive("shop").stream()
                .mapToLong(JobReads.LiveCount::count)
                .sum();
        assertThat(live).as("live counts agree with the rows").isEqualTo(16);
    }

    @Test
    void callersOfOneGroupWithOneBizKeyGetOneJob() throws Exception {
        List<Job> queued = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            queued.add(job("order-" + (i % 3), "{\"i\":" + i + "}"));
        }
        List<CompletableFuture<Inserted>> answers = asOneGroupBehindAFirst(queued);
        answers.get(0).get(60, TimeUnit.SECONDS);
        Map<String, Set<Long>> idsByKey = new java.util.HashMap<>();
        int created = 0;
        for (CompletableFuture<Inserted> a : answers.subList(1, answers.size())) {
            Inserted in = a.get(60, TimeUnit.SECONDS);
            idsByKey.computeIfAbsent(in.job().bizKey(), k -> new HashSet<>())
                    .add(in.job().id());
            created += in.created() ? 1 : 0;
        }
        assertThat(transactions.get()).as("the twelve in one transaction").isEqualTo(2);
        assertThat(idsByKey).hasSize(3).allSatisfy((key, ids) -> assertThat(ids).hasSize(1));
        assertThat(created).isEqualTo(3);
        assertThat(count("SELECT COUNT(*) FROM job_delay_task")).isEqualTo(4);
    }

    @Test
    void aSubmitWaitingOnABizKeyAnotherTransactionHoldsFailsAloneAndTheOthersAreStored() throws Exception {
        // another node's transaction took bizKey "held" and does not end (a node frozen mid-commit);
        // the writer's connections wait 2 s for a row lock instead of InnoDB's 50 s
        groups.close();
        db.close();
        writeTo(new Database(
                url + (url.contains("?") ? "&" : "?") + "sessionVariables=innodb_lock_wait_timeout=2", "root", "", 8));
        try (Connection holder = DriverManager.getConnection(url, "root", "");
                Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            s.execute("INSERT INTO hg_biz_key (app, biz_key, job_id) VALUES ('shop', 'held', 1)");
            List<CompletableFuture<Inserted>> answers =
                    asOneGroupBehindAFirst(List.of(job("a", "{}"), job("held", "{}"), job("b", "{}"), job(null, "{}")));
            for (int i : new int[] {0, 1, 3, 4}) {
                assertThat(answers.get(i).get(60, TimeUnit.SECONDS).created()).isTrue();
            }
            assertThatThrownBy(() -> answers.get(2).get(60, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(StoreContendedException.class);
            holder.rollback();
        }
        assertThat(count("SELECT COUNT(*) FROM job_delay_task")).isEqualTo(4);
        assertThat(count("SELECT COUNT(*) FROM hg_biz_key WHERE biz_key = 'held'"))
                .isZero();
    }
}
