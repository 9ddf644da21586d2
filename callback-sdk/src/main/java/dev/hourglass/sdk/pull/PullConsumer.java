package dev.hourglass.sdk.pull;

import dev.hourglass.sdk.HourglassClient;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the jobs of PULL services on this machine's threads (docs/api.md, "Pull consumers"): it
 * reserves ready jobs from Hourglass, runs each with a {@link PullHandler} and reports the results.
 *
 * <pre>{@code
 * PullConsumer consumer = PullConsumer.builder(hourglass)
 *         .services("order-close")
 *         .handler(job -> {
 *             orders.close(job.getBizKey());
 *             return PullResult.success();
 *         })
 *         .threads(4).batchSize(50).longPollWait(Duration.ofSeconds(20)).ttr(Duration.ofMinutes(1))
 *         .build();
 * consumer.start();
 * ...
 * consumer.stop(Duration.ofSeconds(30));
 * }</pre>
 *
 * <p>How it works, one part per concern:
 * <ul>
 *   <li><b>Reserving</b> ({@link ReserveLoop}, thread {@code hourglass-pull-<name>-reserve}):
 *       long-polls for at most as many jobs as there are idle workers ({@link WorkSlots}), so a
 *       reservation never waits for a worker while its TTR runs out. The services are served in
 *       the order given.
 *   <li><b>Running</b> (threads {@code hourglass-pull-<name>-worker-n}): one handler call per
 *       reservation. A handler that throws, or returns null, answers RETRY with the exception's text.
 *   <li><b>Touching</b> ({@link TouchKeeper}, thread {@code hourglass-pull-<name>-touch}): a handler
 *       still running at half its TTR has its reservation touched for another TTR, again and again.
 *       A touch refused with CONFLICT means the reservation is lost: logged and counted; the handler
 *       runs on and its result will be refused too (counted once).
 *   <li><b>Results</b> ({@link ResultSender}, thread {@code hourglass-pull-<name>-results}): sent in
 *       batches (full, or {@code resultLinger} after the first); a send that fails for a transient
 *       reason is tried again until the attempt's deadline. Nothing is dropped without a log line
 *       and a count ({@link #getResultsGivenUp()}).
 * </ul>
 *
 * <p>Lifecycle LATENT → STARTED → STOPPING → CLOSED; {@link #start()} once. {@link #stop(Duration)}
 * reserves no more, answers RELEASE (no delay, no attempt used) for the reservations no handler
 * has started, waits for the reserve under way (its jobs are released as well: a consumer without
 * jobs to run stops when its long poll ends, so keep the long poll shorter than the stop timeout)
 * and for the running handlers, then flushes the results, all within the timeout. Handlers still
 * running after it go on in their daemon threads; their reservations are still touched and their
 * results are sent one by one when they end.
 *
 * <p>Counters count what the node accepted ({@code succeeded}, {@code retried}, {@code failed},
 * {@code released}), what it handed out ({@code reserved}), reservations it no longer held for this
 * consumer ({@code lostReservations}) and results given up ({@code resultsGivenUp}). Thread-safe;
 * all threads are daemon threads.
 */
public final class PullConsumer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(PullConsumer.class.getName());

    /** LATENT until started, STOPPING while it stops, then CLOSED for good. */
    public enum State {
        LATENT,
        STARTED,
        STOPPING,
        CLOSED
    }

    private final PullHandler handler;
    private final Duration closeTimeout;
    private final PullCounters counters = new PullCounters();
    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile boolean stoppedCleanly;

    private final WorkSlots slots;
    private final ThreadPoolExecutor workers;
    private final ScheduledThreadPoolExecutor touchScheduler;
    private final TouchKeeper touches;
    private final ResultSender results;
    private final Thread reserver;

    private PullConsumer(Builder b) {
        String prefix = "hourglass-pull-" + (b.name != null ? b.name : b.services.get(0));
        long ttrMs = b.ttr.toMillis();
        this.handler = b.handler;
        this.closeTimeout = b.closeTimeout;
        this.slots = new WorkSlots(b.threads);
        this.touchScheduler = new ScheduledThreadPoolExecutor(1, new DaemonThreads(prefix + "-touch"));
        touchScheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        touchScheduler.setRemoveOnCancelPolicy(true);
        this.workers =
                new ThreadPoolExecutor(
                        b.threads,
                        b.threads,
                        0,
                        TimeUnit.MILLISECONDS,
                        new LinkedBlockingQueue<>(),
                        new DaemonThreads(prefix + "-worker")) {
                    @Override
                    protected void terminated() {
                        touchScheduler.shutdown(); // no handler left to keep alive
                    }
                };
        this.touches = new TouchKeeper(b.client, touchScheduler, ttrMs, counters);
        this.results =
                new ResultSender(b.client, counters, b.resultBatchSize, b.resultLinger.toNanos(), prefix + "-results");
        this.reserver = DaemonThreads.named(
                prefix + "-reserve",
                new ReserveLoop(
                        b.client,
                        b.services,
                        b.batchSize,
                        ttrMs,
                        b.longPollWait.toMillis(),
                        slots,
                        this::handOn,
                        counters));
    }

    public static Builder builder(HourglassClient client) {
        return new Builder(client);
    }

    /** Starts reserving. Once only: a second start, or one after stop, is an IllegalStateException. */
    public void start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("PullConsumer cannot start: it is " + state.get());
        }
        results.start();
        reserver.start();
    }

    /** {@link #stop(Duration)} with the builder's {@code closeTimeout} (30 s by default). */
    @Override
    public void close() {
        stop(closeTimeout);
    }

    /**
     * Stops gracefully within {@code timeout} (see the class comment); true when everything ended
     * in time: the reserve under way, every handler, every result settled. A second call waits for
     * the first one's end (within its own timeout) and answers the same.
     */
    public boolean stop(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (state.compareAndSet(State.LATENT, State.CLOSED)) {
            workers.shutdown();
            stoppedCleanly = true;
            closed.countDown();
            return true;
        }
        if (!state.compareAndSet(State.STARTED, State.STOPPING)) {
            return awaitClosed(deadline) && stoppedCleanly;
        }
        try {
            slots.close();
            workers.shutdown();
            List<Runnable> unstarted = new ArrayList<>();
            workers.getQueue().drainTo(unstarted);
            for (Runnable work : unstarted) {
                release(((Work) work).attempt);
            }
            boolean reserveEnded = join(reserver, deadline);
            boolean handlersEnded = workers.awaitTermination(left(deadline), TimeUnit.NANOSECONDS);
            boolean resultsSettled = results.close(deadline);
            if (!unstarted.isEmpty()) {
                LOG.log(Level.INFO, "Released {0} reservation(s) no handler had started", unstarted.size());
            }
            if (!reserveEnded || !handlersEnded || !resultsSettled) {
                LOG.log(
                        Level.WARNING,
                        "PullConsumer stopped after {0} ms with work left: reserve under way {1}, handlers"
                                + " running {2}, results unsettled {3}; they go on in the background",
                        timeout.toMillis(),
                        !reserveEnded,
                        workers.getActiveCount(),
                        !resultsSettled);
            }
            stoppedCleanly = reserveEnded && handlersEnded && resultsSettled;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stoppedCleanly = false;
        } finally {
            state.set(State.CLOSED);
            closed.countDown();
        }
        return stoppedCleanly;
    }

    public State getState() {
        return state.get();
    }

    /** Reservations the node handed to this consumer. */
    public long getReserved() {
        return counters.reserved.sum();
    }

    /** SUCCESS results the node accepted. */
    public long getSucceeded() {
        return counters.succeeded.sum();
    }

    /** RETRY results the node accepted (handler exceptions included). */
    public long getRetried() {
        return counters.retried.sum();
    }

    /** FAIL results the node accepted. */
    public long getFailed() {
        return counters.failed.sum();
    }

    /** RELEASE results the node accepted: the reservations a stop found unstarted, and handlers' releases. */
    public long getReleased() {
        return counters.released.sum();
    }

    /** Reservations the node no longer held for this consumer when it touched or answered them; once each. */
    public long getLostReservations() {
        return counters.lostReservations.sum();
    }

    /** Results that could not be delivered before their attempt's deadline, or that the node refused for good. */
    public long getResultsGivenUp() {
        return counters.resultsGivenUp.sum();
    }

    /** From the reserving thread: to a worker, or released once the consumer is stopping. */
    private void handOn(Attempt attempt) {
        if (state.get() == State.STARTED) {
            try {
                workers.execute(new Work(attempt));
                return;
            } catch (RejectedExecutionException stopping) {
                // the stop shut the workers between the check and here
            }
        }
        release(attempt);
    }

    private void release(Attempt attempt) {
        results.submit(attempt, attempt.release());
        slots.give(1);
    }

    private boolean awaitClosed(long deadline) {
        try {
            return closed.await(left(deadline), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static boolean join(Thread thread, long deadline) throws InterruptedException {
        long left = left(deadline);
        if (left > 0) {
            TimeUnit.NANOSECONDS.timedJoin(thread, left);
        }
        return !thread.isAlive();
    }

    private static long left(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    /** One handler call: the reservation is touched while it runs, its slot freed once its result is queued. */
    private final class Work implements Runnable {
        final Attempt attempt;

        Work(Attempt attempt) {
            this.attempt = attempt;
        }

        @Override
        public void run() {
            touches.watch(attempt);
            PullResult result = null;
            Throwable thrown = null;
            try {
                result = handler.handle(attempt.reservation());
            } catch (Throwable t) {
                thrown = t;
            }
            attempt.finish();
            if (thrown != null) {
                LOG.log(Level.WARNING, "Handler failed on " + attempt + "; answering RETRY", thrown);
                result = PullResult.retry(String.valueOf(thrown));
            } else if (result == null) {
                result = PullResult.retry("the handler returned no result");
            }
            results.submit(attempt, attempt.report(result));
            slots.give(1);
            if (thrown instanceof Error error) {
                throw error;
            }
        }
    }

    /**
     * The consumer's settings. Required: the client (given), {@link #services} and {@link #handler}.
     * Defaults: 1 thread, batch size 10, long-poll wait 20 s, TTR 60 s, result linger 10 ms, result
     * batch 100, close timeout 30 s, name the first service. A setting out of bounds fails {@link
     * #build()} with an IllegalArgumentException naming it.
     */
    public static final class Builder {
        private static final int MAX_SERVICES = 10;
        private static final int MAX_RESERVE = 100;
        private static final int MAX_RESULTS = 1_000;
        private static final Duration MIN_TTR = Duration.ofSeconds(1);
        private static final Duration MAX_TTR = Duration.ofHours(1);
        private static final Duration MAX_WAIT = Duration.ofSeconds(30);
        private static final Duration MAX_LINGER = Duration.ofSeconds(1);

        private final HourglassClient client;
        private List<String> services = List.of();
        private PullHandler handler;
        private int threads = 1;
        private int batchSize = 10;
        private Duration longPollWait = Duration.ofSeconds(20);
        private Duration ttr = Duration.ofSeconds(60);
        private Duration resultLinger = Duration.ofMillis(10);
        private int resultBatchSize = 100;
        private Duration closeTimeout = Duration.ofSeconds(30);
        private String name;

        private Builder(HourglassClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /** The PULL services to reserve from, the first served first; 1 to 10. */
        public Builder services(String... services) {
            return services(Arrays.asList(services));
        }

        public Builder services(List<String> services) {
            this.services = List.copyOf(services);
            return this;
        }

        public Builder handler(PullHandler handler) {
            this.handler = handler;
            return this;
        }

        /** Handler threads, and so the most reservations held at once. */
        public Builder threads(int threads) {
            this.threads = threads;
            return this;
        }

        /** The most jobs one reserve asks for (1 to 100); never more than the idle threads. */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /** How long the node may hold a reserve that finds no job (0 to 30 s; 0: no long poll). */
        public Builder longPollWait(Duration longPollWait) {
            this.longPollWait = longPollWait;
            return this;
        }

        /** How long a reservation is held before it times out unless touched (1 s to 1 h). */
        public Builder ttr(Duration ttr) {
            this.ttr = ttr;
            return this;
        }

        /** How long a result waits for others to share its request (0 to 1 s). */
        public Builder resultLinger(Duration resultLinger) {
            this.resultLinger = resultLinger;
            return this;
        }

        /** The most results in one request (1 to 1,000). */
        public Builder resultBatchSize(int resultBatchSize) {
            this.resultBatchSize = resultBatchSize;
            return this;
        }

        /** The timeout of {@link PullConsumer#close()}. */
        public Builder closeTimeout(Duration closeTimeout) {
            this.closeTimeout = closeTimeout;
            return this;
        }

        /** Names the consumer's threads: {@code hourglass-pull-<name>-...}. */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public PullConsumer build() {
            require(handler != null, "handler is required");
            require(
                    !services.isEmpty() && services.size() <= MAX_SERVICES,
                    "services must name 1 to " + MAX_SERVICES + " services: " + services);
            require(threads >= 1, "threads must be at least 1: " + threads);
            require(
                    batchSize >= 1 && batchSize <= MAX_RESERVE,
                    "batchSize must be 1 to " + MAX_RESERVE + ": " + batchSize);
            require(
                    within(longPollWait, Duration.ZERO, MAX_WAIT),
                    "longPollWait must be 0 to " + MAX_WAIT.toSeconds() + " s: " + longPollWait);
            require(within(ttr, MIN_TTR, MAX_TTR), "ttr must be 1 s to 1 h: " + ttr);
            require(within(resultLinger, Duration.ZERO, MAX_LINGER), "resultLinger must be 0 to 1 s: " + resultLinger);
            require(
                    resultBatchSize >= 1 && resultBatchSize <= MAX_RESULTS,
                    "resultBatchSize must be 1 to " + MAX_RESULTS + ": " + resultBatchSize);
            require(
                    closeTimeout != null && !closeTimeout.isNegative(),
                    "closeTimeout must not be negative: " + closeTimeout);
            return new PullConsumer(this);
        }

        private static boolean within(Duration value, Duration min, Duration max) {
            return value != null && value.compareTo(min) >= 0 && value.compareTo(max) <= 0;
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException("PullConsumer: " + message);
            }
        }
    }
}
