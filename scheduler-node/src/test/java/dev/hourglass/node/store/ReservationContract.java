package dev.hourglass.node.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptEndings;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Execution;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.core.port.DuePage;
import dev.hourglass.node.core.port.ReservationStore;
import dev.hourglass.node.core.port.ReservationStore.HeldJob;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.timeindex.IndexEntry;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.store.mybatis.MyBatisAttemptStore;
import dev.hourglass.node.store.mybatis.MyBatisJobRepository;
import dev.hourglass.node.store.mybatis.MyBatisReservationStore;
import dev.hourglass.node.store.mybatis.MyBatisServiceRepository;
import dev.hourglass.node.store.mybatis.SqlFailures;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The storage of pull consumers' reservations, the same scenarios on every database we ship: a
 * reservation is an attempt taken by a conditional update, so two consumers never hold the same
 * one; services are served in the order given, each oldest first; a touch moves only the current
 * attempt's deadline, within the reservation's life; the queue view counts what it says.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ReservationContract {
    private static final AtomicLong IDS = new AtomicLong(5_000);
    private static final long T0 = 1_800_000_000_000L;
    private static final long HOUR = 3_600_000;

    protected Database db;
    private MyBatisJobRepository jobs;
    private MyBatisAttemptStore attempts;
    private ReservationStore reservations;
    private MyBatisServiceRepository services;
    private String app;

    protected abstract Database open();

    /** Whether concurrent reservations are to be tested (H2 is the demo database only). */
    protected boolean testsConcurrency() {
        return true;
    }

    @BeforeAll
    void openDatabase() {
        db = open();
        jobs = new MyBatisJobRepository(db.sessions(), new SqlFailures());
        attempts = new MyBatisAttemptStore(db.sessions(), "n1", new SqlFailures());
        reservations = new MyBatisReservationStore(db.sessions(), "n1", new SqlFailures());
        services = new MyBatisServiceRepository(db.sessions());
        app = "pull" + System.nanoTime() % 1_000_000;
    }

    @AfterAll
    void closeDatabase() {
        db.close();
    }

    private Job stored(String service, long fireAt) {
        return stored(service, fireAt, null);
    }

    /** The service as a PULL service (a reserve takes only those), created once. */
    private void pullService(String service, int maxInFlight) {
        definedService(service, Protocol.PULL, maxInFlight);
    }

    private void definedService(String service, Protocol protocol, int maxInFlight) {
        if (services.find(app, service).isEmpty()) {
            services.put(new ServiceDefinition(
                    app,
                    service,
                    protocol,
                    null,
                    protocol == Protocol.HTTP ? "http://127.0.0.1/cb" : null,
                    null,
                    null,
                    3,
                    30_000,
                    Backoff.DEFAULT,
                    AckMode.CONSUMER,
                    maxInFlight,
                    null,
                    null,
                    T0,
                    T0));
        }
    }

    /**
     * A PULL service's jobs are marked so in the live table: the engine's reads of due jobs skip
     * them by their row, with no service left out by name, however many are ready; a job back
     * from the backlog is marked again. The overdue scan reads pushed and PULL jobs each up to its
     * own limit, so older PULL jobs do not hide a pushed one. (Shard 41: no other test's.)
     */
    @Test
    void theEnginesReadsOfDueJobsSkipPullJobsByTheirRow() {
        pullService("engine-skips", ServiceDefinition.DEFAULT_MAX_IN_FLIGHT);
        definedService("not-pulled", Protocol.HTTP, ServiceDefinition.DEFAULT_MAX_IN_FLIGHT);
        Job ready = onShard41("engine-skips", T0 - 50);
        Job revived = onShard41("engine-skips", T0 - 40);
        Job pushed = onShard41("not-pulled", T0 - 10);
        var mutations = new dev.hourglass.node.store.mybatis.MyBatisJobMutations(db.sessions(), "n1");
        mutations.cancel(revived.id(), app, () -> T0, (node, id, attempt) -> AttemptHolders.Answer.WITHHELD);
        assertThat(mutations.revive(revived.id(), app, T0 - 30, 41, T0)).isPresent();

        DuePage everyService = new DuePage(Map.of(41, DuePage.Cursor.START), T0 + 1_000, 10, Set.of());
        assertThat(attempts.loadDue(everyService))
                .as("nothing left out by name")
                .extracting(IndexEntry::jobId)
                .containsExactly(pushed.id());

        var alerts = new dev.hourglass.node.store.mybatis.MyBatisAlertStore(db.sessions());
        assertThat(alerts.oldestOverdue(64, T0, 1).oldest())
                .as("the oldest of each part, though the PULL jobs are older")
                .containsEntry(app + "/engine-skips", ready.dueAt())
                .containsEntry(app + "/not-pulled", pushed.dueAt());
    }

    private Long startedAt(long jobId) {
        try (org.apache.ibatis.session.SqlSession s = db.sessions().openSession(true);
                java.sql.Statement st = s.getConnection().createStatement();
                java.sql.ResultSet rs = st.executeQuery("SELECT started_at FROM job_delay_task WHERE id = " + jobId)) {
            rs.next();
            long at = rs.getLong(1);
            return rs.wasNull() ? null : at;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private Job onShard41(String service, long fireAt) {
        return insertedOn(41, service, fireAt, null);
    }

    private Job stored(String service, long fireAt, Long expireAt) {
        pullService(service, ServiceDefinition.DEFAULT_MAX_IN_FLIGHT);
        return insertedOn(1, service, fireAt, expireAt);
    }

    private Job insertedOn(int shard, String service, long fireAt, Long expireAt) {
        Job job = Job.builder()
                .id(IDS.incrementAndGet() * 1000 + System.nanoTime() % 1000)
                .app(app)
                .service(service)
                .shard(shard)
                .state(JobState.DELAYED)
                .fireAt(fireAt)
                .dueAt(fireAt)
                .expireAt(expireAt)
                .expireAfterMs(expireAt == null ? null : expireAt - fireAt)
                .maxAttempts(3)
                .timeoutMs(30_000)
                .payload("{\"n\":1}")
                .attributes(Map.of())
                .createdAt(T0)
                .updatedAt(T0)
                .build();
        return jobs.insert(job).job();
    }

    private static List<Long> ids(List<Job> list) {
        return list.stream().map(Job::id).toList();
    }

    /** A reserve at once through this node's store: the jobs, without their due times. */
    private List<Job> reserve(String app, List<String> services, int max, Long ttrMs, String node, long now) {
        return reservations.reserve(app, services, max, ttrMs, node, now).stream()
                .map(HeldJob::job)
                .toList();
    }

    @Test
    void aReserveTakesReadyJobsOldestFirstAndTheServicesInTheOrderGiven() {
        Job lowOld = stored("low", T0 - 300);
        Job highLater = stored("high", T0 - 100);
        Job highOlder = stored("high", T0 - 200);
        Job highNotDue = stored("high", T0 + 60_000);

        List<HeldJob> held = reservations.reserve(app, List.of("high", "low"), 3, 5_000L, "n1", T0);
        List<Job> got = held.stream().map(HeldJob::job).toList();

        assertThat(held)
                .extracting(HeldJob::dueAt)
                .as("each with the time it became due, for the node's lateness figures")
                .containsExactly(T0 - 200, T0 - 100, T0 - 300);
        assertThat(ids(got))
                .as("the first service's ready jobs oldest first, then the next service's")
                .containsExactly(highOlder.id(), highLater.id(), lowOld.id());
        for (Job j : got) {
            assertThat(j.state()).isEqualTo(JobState.RUNNING);
            assertThat(j.attempts()).isEqualTo(1);
            assertThat(j.dueAt()).as("the deadline is the reservation's TTR").isEqualTo(T0 + 5_000);
            assertThat(j.ownerNode()).isEqualTo("n1");
            Execution e = jobs.executions(j.id()).get(0);
            assertThat(e.firedAt()).as("handed out at the reservation").isEqualTo(T0);
            assertThat(e.outcome()).isNull();
        }
        assertThat(jobs.find(highNotDue.id()).orElseThrow().state())
                .as("never before its fire time")
                .isEqualTo(JobState.DELAYED);
        assertThat(reserve(app, List.of("high", "low"), 10, 5_000L, "n1", T0))
                .as("a reserved job is not reserved again")
                .isEmpty();
    }

    /** Whether a reserve ahead took all that is due by its horizon: not when the count asked left some. */
    @Test
    void aReserveAheadSaysWhetherItTookAllThatIsDueByItsHorizon() {
        Job first = stored("ahead", T0 + 100);
        Job second = stored("ahead", T0 + 150);
        stored("ahead", T0 + 250);

        ReservationStore.Ahead one = reservations.reserveAhead(app, "ahead", 1, 5_000L, "n1", T0, T0 + 200, 300);
        assertThat(one.jobs()).extracting(h -> h.job().id()).containsExactly(first.id());
        assertThat(one.tookAllDue()).as("one more is due by the horizon").isFalse();

        ReservationStore.Ahead rest = reservations.reserveAhead(app, "ahead", 10, 5_000L, "n1", T0, T0 + 200, 300);
        assertThat(rest.jobs()).extracting(h -> h.job().id()).containsExactly(second.id());
        assertThat(rest.tookAllDue()).isTrue();
    }

    /**
     * Reserving ahead for a node's waiting consumers: the jobs due by the horizon, each with its
     * deadline and log row counted from its due time (it is handed out then), nothing beyond the
     * horizon; what is given back is as it was, ready for the same attempt.
     */
    @Test
    void aReserveAheadTakesWhatIsDueByItsHorizonAndAGiveBackPutsItBackAsItWas() {
        Job overdue = stored("ahead", T0 - 50);
        Job soon = stored("ahead", T0 + 150);
        Job beyond = stored("ahead", T0 + 250);
        Job expiresFirst = stored("ahead", T0 + 120, T0 + 100); // expired by the time it is due

        ReservationStore.Ahead ahead = reservations.reserveAhead(app, "ahead", 10, 5_000L, "n1", T0, T0 + 200, 300);
        List<HeldJob> held = ahead.jobs();
        assertThat(ahead.tookAllDue())
                .as("all due by the horizon, and beyond the count asked")
                .isTrue();

        assertThat(held).extracting(h -> h.job().id()).containsExactly(overdue.id(), soon.id());
        assertThat(held).extracting(HeldJob::dueAt).containsExactly(T0 - 50, T0 + 150);
        assertThat(held.get(0).job().dueAt())
                .as("due already: from now, plus the hold")
                .isEqualTo(T0 + 300 + 5_000);
        assertThat(held.get(1).job().dueAt())
                .as("from its due time, plus the hold")
                .isEqualTo(T0 + 150 + 300 + 5_000);
        assertThat(jobs.executions(soon.id()).get(0).firedAt())
                .as("handed out at its due time")
                .isEqualTo(T0 + 150);
        assertThat(jobs.executions(overdue.id()).get(0).firedAt()).isEqualTo(T0);
        assertThat(jobs.find(beyond.id()).orElseThrow().state())
                .as("beyond the horizon")
                .isEqualTo(JobState.DELAYED);
        assertThat(jobs.find(expiresFirst.id()).orElseThrow().state())
                .as("not reserved ahead past its expiry")
                .isEqualTo(JobState.DELAYED);

        assertThat(reservations.giveBack(held, "n2", T0 + 10))
                .as("only by the node holding them")
                .isZero();
        assertThat(reservations.giveBack(held, "n1", T0 + 10)).isEqualTo(2);
        Job back = jobs.find(soon.id()).orElseThrow();
        assertThat(back.state()).isEqualTo(JobState.DELAYED);
        assertThat(back.attempts()).as("the attempt taken back").isZero();
        assertThat(back.dueAt()).as("due when it was").isEqualTo(T0 + 150);
        assertThat(startedAt(soon.id()))
                .as("no start left on the row: only a running attempt has one")
                .isNull();
        assertThat(jobs.executions(soon.id()))
                .as("no attempt shows that never left the node")
                .isEmpty();
        assertThat(reservations.giveBack(held, "n1", T0 + 20))
                .as("given back once")
                .isZero();
        assertThat(ids(reserve(app, List.of("ahead"), 10, 5_000L, "n1", T0 + 200)))
                .as("the same attempt made again")
                .containsExactly(overdue.id(), soon.id());
        assertThat(jobs.find(soon.id()).orElseThrow().attempts()).isEqualTo(1);
        assertThat(jobs.find(expiresFirst.id()).orElseThrow().state())
                .as("expired once due")
                .isEqualTo(JobState.EXPIRED);
    }

    @Test
    void aJobPastItsExpiryIsExpiredNotReserved() {
        Job expired = stored("exp", T0 - 1_000, T0 - 1);
        Job fine = stored("exp", T0 - 500);
        assertThat(ids(reserve(app, List.of("exp"), 10, 5_000L, "n1", T0))).containsExactly(fine.id());
        assertThat(jobs.find(expired.id()).orElseThrow().state()).isEqualTo(JobState.EXPIRED);
    }

    @Test
    void jobsPastTheirExpiryAtTheHeadOfTheQueueAreExpiredOnTheWayToTheReadyOneBehindThem() {
        List<Job> expired = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            expired.add(stored("stale", T0 - 10_000 + i, T0 - 1));
        }
        Job fine = stored("stale", T0 - 100);
        assertThat(ids(reserve(app, List.of("stale"), 1, 5_000L, "n1", T0)))
                .as("one reserve reaches the ready job behind 40 expired ones")
                .containsExactly(fine.id());
        for (Job e : expired) {
            assertThat(jobs.find(e.id()).orElseThrow().state()).isEqualTo(JobState.EXPIRED);
        }
    }

    @Test
    void aTouchMovesOnlyTheCurrentAttemptsDeadlineAndNeverPastTheReservationsLife() {
        Job j = stored("touch", T0 - 10);
        Job reserved = reserve(app, List.of("touch"), 1, 5_000L, "n1", T0).get(0);
        assertThat(reservations.touch(j.id(), 1, 20_000, 12 * HOUR, T0 + 1_000)).contains(T0 + 21_000);
        assertThat(jobs.find(j.id()).orElseThrow().dueAt()).isEqualTo(T0 + 21_000);
        assertThat(reservations.touch(j.id(), 1, HOUR, 12 * HOUR, T0 + 12 * HOUR - 1_000))
                .as("capped at the reservation time + its life")
                .contains(T0 + 12 * HOUR);
        assertThat(reservations.touch(j.id(), 2, 20_000, 12 * HOUR, T0 + 2_000))
                .as("another attempt: nothing changes")
                .isEmpty();
        assertThat(jobs.find(j.id()).orElseThrow().dueAt()).isEqualTo(T0 + 12 * HOUR);
        assertThat(reservations.touch(j.id(), 1, 20_000, 12 * HOUR, T0 + 12 * HOUR + 1))
                .as("past its life: not renewed (its deadline would be in the past)")
                .isEmpty();
        assertThat(reserved.attempts()).isEqualTo(1);
    }

    /** A reservation made by a node before V14 has no start on its job: its open log row has it. */
    @Test
    void aTouchOfAReservationMadeBeforeV14CountsItsLifeFromItsOpenLogRow() throws Exception {
        Job j = stored("touch-old", T0 - 10);
        reserve(app, List.of("touch-old"), 1, 5_000L, "n1", T0);
        try (org.apache.ibatis.session.SqlSession s = db.sessions().openSession(true);
                java.sql.Statement st = s.getConnection().createStatement()) {
            st.executeUpdate("UPDATE job_delay_task SET started_at = NULL WHERE id = " + j.id());
            st.executeUpdate("INSERT INTO job_delay_task_execlog (job_id, attempt, node, fire_at, fired_at, app,"
                    + " service) VALUES (" + j.id() + ", 1, 'n1', " + (T0 - 10) + ", " + (T0 - 5_000) + ", '" + app
                    + "', 'touch-old')");
        }
        assertThat(reservations.touch(j.id(), 1, HOUR, 12 * HOUR, T0 + 12 * HOUR - 10_000))
                .as("capped at the time its log row says + its life")
                .contains(T0 - 5_000 + 12 * HOUR);
        assertThat(reservations.touch(j.id(), 1, 20_000, 12 * HOUR, T0 + 12 * HOUR - 4_000))
                .as("past that life: not renewed")
                .isEmpty();
    }

    @Test
    void aLapsedReservationTimesOutAndIsReservedAgainAsTheNextAttemptWhileAStaleResultChangesNothing() {
        Job j = stored("ttr", T0 - 10);
        Job first = reserve(app, List.of("ttr"), 1, 1_000L, "n1", T0).get(0);
        // the timeout sweep's result once the TTR passed: due again after the backoff
        attempts.record(List.of(AttemptEndings.timedOut(first, Backoff.DEFAULT, T0 + 1_001)), T0 + 1_001);
        Job again = jobs.find(j.id()).orElseThrow();
        assertThat(again.state()).isEqualTo(JobState.DELAYED);
        List<Job> second = reserve(app, List.of("ttr"), 1, 1_000L, "n2", again.dueAt());
        assertThat(second).extracting(Job::attempts).containsExactly(2);
        // the first consumer answers late: its attempt is not current any more
        attempts.record(
                List.of(AttemptEndings.reported(
                        first, AttemptOutcome.SUCCESS, null, null, Backoff.DEFAULT, T0 + 5_000)),
                T0 + 5_000);
        assertThat(jobs.find(j.id()).orElseThrow().state())
                .as("a result for attempt 1 leaves attempt 2 alone")
                .isEqualTo(JobState.RUNNING);
        attempts.record(
                List.of(AttemptEndings.reported(
                        second.get(0), AttemptOutcome.SUCCESS, null, null, Backoff.DEFAULT, again.dueAt() + 10)),
                again.dueAt() + 10);
        assertThat(jobs.find(j.id()).orElseThrow().state()).isEqualTo(JobState.FINISHED);
        assertThat(jobs.executions(j.id()))
                .extracting(Execution::outcome)
                .containsExactly(AttemptOutcome.TIMEOUT, AttemptOutcome.SUCCESS);
    }

    @Test
    void theQueueViewCountsReadyReservedAndDelayedAndPeeksWithoutReserving() {
        Job a = stored("q", T0 - 300);
        Job b = stored("q", T0 - 200);
        stored("q", T0 - 100);
        stored("q", T0 + 10_000);
        reserve(app, List.of("q"), 1, 5_000L, "n1", T0); // takes a
        ReservationStore.QueueView q = reservations.queue(app, "q", 1, T0);
        assertThat(q.ready()).isEqualTo(2);
        assertThat(q.reserved()).isEqualTo(1);
        assertThat(q.delayed()).isEqualTo(1);
        assertThat(q.oldestReadyDueAt()).isEqualTo(T0 - 200);
        assertThat(ids(q.next())).containsExactly(b.id());
        assertThat(jobs.find(b.id()).orElseThrow().state())
                .as("a peek reserves nothing")
                .isEqualTo(JobState.DELAYED);
        assertThat(jobs.find(a.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        ReservationStore.QueueView empty = reservations.queue(app, "none", 5, T0);
        assertThat(empty.ready() + empty.reserved() + empty.delayed()).isZero();
        assertThat(empty.oldestReadyDueAt()).isNull();
    }

    @Test
    void openReservationsStayWithinTheServicesMaxInFlightUntilOneIsAnswered() {
        pullService("bounded", 2);
        Job a = stored("bounded", T0 - 300);
        stored("bounded", T0 - 200);
        stored("bounded", T0 - 100);
        assertThat(reserve(app, List.of("bounded"), 10, 5_000L, "n1", T0))
                .as("maxInFlight 2")
                .hasSize(2);
        assertThat(reserve(app, List.of("bounded"), 10, 5_000L, "n1", T0))
                .as("two open: none more")
                .isEmpty();
        Job held = jobs.find(a.id()).orElseThrow();
        attempts.record(
                List.of(AttemptEndings.reported(held, AttemptOutcome.SUCCESS, null, null, Backoff.DEFAULT, T0 + 1)),
                T0 + 1);
        assertThat(reserve(app, List.of("bounded"), 10, 5_000L, "n1", T0 + 2))
                .as("one answered: room for one")
                .hasSize(1);
    }

    @Test
    void onlyAPullServiceIsReservedAndWithoutATtrAJobGetsItsTimeoutWithinTheBounds() {
        services.put(new ServiceDefinition(
                app,
                "pushed",
                Protocol.HTTP,
                null,
                "http://127.0.0.1:1/x",
                null,
                null,
                3,
                30_000,
                Backoff.DEFAULT,
                AckMode.AUTO,
                10,
                null,
                null,
                T0,
                T0));
        Job job = Job.builder()
                .id(IDS.incrementAndGet() * 1000)
                .app(app)
                .service("pushed")
                .shard(1)
                .state(JobState.DELAYED)
                .fireAt(T0 - 10)
                .dueAt(T0 - 10)
                .maxAttempts(3)
                .timeoutMs(30_000)
                .payload("{}")
                .attributes(Map.of())
                .createdAt(T0)
                .updatedAt(T0)
                .build();
        jobs.insert(job);
        assertThat(reserve(app, List.of("pushed"), 10, 5_000L, "n1", T0))
                .as("an HTTP service's jobs are the engine's")
                .isEmpty();
        assertThat(jobs.find(job.id()).orElseThrow().state()).isEqualTo(JobState.DELAYED);

        stored("ttrless", T0 - 10); // timeoutMs 30 s
        assertThat(reserve(app, List.of("ttrless"), 1, null, "n1", T0))
                .extracting(Job::dueAt)
                .containsExactly(T0 + 30_000);
    }

    @Test
    void theNextDueTimeOfEachServiceIsReadInOneGo() {
        stored("soon", T0 + 5_000);
        stored("soon", T0 + 3_000);
        stored("later", T0 + 9_000);
        Map<String, Long> next = reservations.nextDue(
                List.of(Job.serviceKey(app, "soon"), Job.serviceKey(app, "later"), Job.serviceKey(app, "empty")));
        assertThat(next)
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(Job.serviceKey(app, "soon"), T0 + 3_000, Job.serviceKey(app, "later"), T0 + 9_000));
    }

    @Test
    void consumersRacingThroughTwoNodesHoldEachAttemptOnce() throws Exception {
        assumeTrue(testsConcurrency(), "H2 is the demo database: its locking is not InnoDB's");
        int n = 2_000;
        List<Job> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(Job.builder()
                    .id(IDS.incrementAndGet() * 1000 + i % 1000)
                    .app(app)
                    .service("race")
                    .shard(i % 8)
                    .state(JobState.DELAYED)
                    .fireAt(T0 - n + i)
                    .dueAt(T0 - n + i)
                    .maxAttempts(3)
                    .timeoutMs(30_000)
                    .payload("{}")
                    .attributes(Map.of())
                    .createdAt(T0)
                    .updatedAt(T0)
                    .build());
        }
        pullService("race", 100_000);
        jobs.insertAll(batch);
        ReservationStore other = new MyBatisReservationStore(db.sessions(), "n2", new SqlFailures());
        ExecutorService consumers = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<List<Long>>> got = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                ReservationStore through = c % 2 == 0 ? reservations : other;
                String node = c % 2 == 0 ? "n1" : "n2";
                got.add(CompletableFuture.supplyAsync(
                        () -> {
                            List<Long> mine = new ArrayList<>();
                            for (int empty = 0; empty < 3; ) {
                                List<HeldJob> r = through.reserve(app, List.of("race"), 50, 60_000L, node, T0);
                                if (r.isEmpty()) {
                                    empty++;
                                }
                                r.forEach(h -> mine.add(h.job().id()));
                            }
                            return mine;
                        },
                        consumers));
            }
            List<Long> all = new ArrayList<>();
            for (CompletableFuture<List<Long>> f : got) {
                all.addAll(f.get());
            }
            Set<Long> distinct = new HashSet<>(all);
            assertThat(all.size()).as("reservations handed out: each job once").isEqualTo(distinct.size());
            assertThat(distinct).as("every ready job reserved").hasSize(n);
            for (Job j : batch.subList(0, 50)) {
                assertThat(jobs.executions(j.id()))
                        .as("one attempt, one log row")
                        .hasSize(1);
            }
        } finally {
            consumers.shutdownNow();
        }
    }

    /**
     * Two reserves through two nodes wait for the service's row while another transaction changes
     * it (maxInFlight lowered, a pause, a rate limit set): what they take is what the row says
     * when each gets it, together, and what they do not take stays ready as it was, with no log
     * row. The limits are read under the row's lock, not before it.
     */
    @Test
    void reservesWaitingForTheServicesRowTakeNoMoreThanTheMaxInFlightItSaysWhenTheyGetIt() throws Exception {
        List<List<HeldJob>> got = afterTheRowIsHeldBy("UPDATE job_callback_service SET max_in_flight = 2", "lowered");
        assertThat(got.get(0).size() + got.get(1).size())
                .as("taken by the two reserves together: maxInFlight 2, as the row said when they got it")
                .isEqualTo(2);
    }

    @Test
    void reservesWaitingForTheServicesRowStartNothingWhenItWasPausedMeanwhile() throws Exception {
        List<List<HeldJob>> got =
                afterTheRowIsHeldBy("UPDATE job_callback_service SET paused_at = " + T0, "pausedMeanwhile");
        assertThat(got)
                .as("a pause found when they get the row: nothing starts")
                .allSatisfy(g -> assertThat(g).isEmpty());
    }

    @Test
    void reservesWaitingForTheServicesRowTakeNoMoreThanTheRateBucketItHoldsThen() throws Exception {
        List<List<HeldJob>> got = afterTheRowIsHeldBy(
                "UPDATE job_callback_service SET rate_per_second = 1, rate_burst = 3, rate_tokens = NULL, rate_at = NULL",
                "limitedMeanwhile");
        assertThat(got.get(0).size() + got.get(1).size())
                .as("a burst of 3 at one moment, shared by the two")
                .isEqualTo(3);
    }

    /**
     * Six ready jobs of a new service; a transaction changes its row with {@code update} and holds
     * it while two reserves of three, through two nodes, wait for the row; then it commits. What
     * each reserve answered, after checking that the jobs taken are reserved once, each with its
     * log row, and the others are ready as they were.
     */
    private List<List<HeldJob>> afterTheRowIsHeldBy(String update, String service) throws Exception {
        assumeTrue(testsConcurrency(), "H2 is the demo database: its locking is not InnoDB's");
        List<Job> ready = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ready.add(stored(service, T0 - 600 + i * 100));
        }
        ReservationStore other = new MyBatisReservationStore(db.sessions(), "n2", new SqlFailures());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<List<HeldJob>> got = new ArrayList<>();
        try (org.apache.ibatis.session.SqlSession holder = db.sessions().openSession(false)) {
            java.sql.Connection c = holder.getConnection();
            try (java.sql.PreparedStatement ps = c.prepareStatement(update + " WHERE app = ? AND name = ?")) {
                ps.setString(1, app);
                ps.setString(2, service);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            List<CompletableFuture<List<HeldJob>>> reserves = List.of(
                    CompletableFuture.supplyAsync(
                            () -> reservations.reserve(app, List.of(service), 3, 60_000L, "n1", T0), pool),
                    CompletableFuture.supplyAsync(
                            () -> other.reserve(app, List.of(service), 3, 60_000L, "n2", T0), pool));
            awaitLockWaits(service, reserves);
            c.commit();
            for (CompletableFuture<List<HeldJob>> r : reserves) {
                got.add(r.get(30, java.util.concurrent.TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        Set<Long> taken = new HashSet<>();
        got.forEach(g -> g.forEach(h ->
                assertThat(taken.add(h.job().id())).as("each job taken once").isTrue()));
        for (Job job : ready) {
            Job now = jobs.find(job.id()).orElseThrow();
            if (taken.contains(job.id())) {
                assertThat(now.state()).isEqualTo(JobState.RUNNING);
                assertThat(now.attempts()).isEqualTo(1);
                assertThat(jobs.executions(job.id()))
                        .as("its reservation's log row")
                        .hasSize(1);
            } else {
                assertThat(now.state()).as("not taken: ready").isEqualTo(JobState.DELAYED);
                assertThat(now.attempts()).as("no attempt used").isZero();
                assertThat(now.dueAt()).as("due as before").isEqualTo(job.dueAt());
                assertThat(jobs.executions(job.id())).as("no log row").isEmpty();
            }
        }
        ReservationStore.QueueView queue = reservations.queue(app, service, 0, T0);
        assertThat(queue.reserved()).isEqualTo(taken.size());
        assertThat(queue.ready()).isEqualTo(6 - taken.size());
        return got;
    }

    /**
     * Waits until each of the reserves waits for this app's service row: seen in the server's
     * thread list, as a statement locking the row (MariaDB's and MySQL's {@code PROCESSLIST}).
     */
    private void awaitLockWaits(String service, List<CompletableFuture<List<HeldJob>>> reserves) throws Exception {
        long until = System.nanoTime() + 10_000_000_000L;
        try (org.apache.ibatis.session.SqlSession s = db.sessions().openSession(true);
                java.sql.PreparedStatement ps = s.getConnection()
                        .prepareStatement("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query'"
                                + " AND INFO LIKE '%FROM job_callback_service%FOR UPDATE%' AND INFO LIKE ?")) {
            ps.setString(1, "%'" + app + "'%'" + service + "'%");
            while (true) {
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) >= reserves.size()) {
                        return;
                    }
                }
                if (System.nanoTime() > until) {
                    StringBuilder seen = new StringBuilder();
                    for (CompletableFuture<List<HeldJob>> r : reserves) {
                        seen.append("\nreserve: ")
                                .append(
                                        r.isDone()
                                                ? r.handle((v, e) -> v + " " + e)
                                                        .join()
                                                : "still running");
                    }
                    throw new AssertionError("the reserves never both waited for the service's row:" + seen);
                }
                Thread.sleep(5);
            }
        }
    }
}
