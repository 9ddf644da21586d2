package dev.hourglass.node.firing;

import dev.hourglass.api.JobState;
import dev.hourglass.node.catalog.AckMode;
import dev.hourglass.node.catalog.ServiceCatalog;
import dev.hourglass.node.catalog.ServiceDefinition;
import dev.hourglass.node.dispatch.Delivery;
import dev.hourglass.node.dispatch.DeliveryResult;
import dev.hourglass.node.dispatch.Dispatcher;
import dev.hourglass.node.job.AttemptOutcome;
import dev.hourglass.node.job.Backoff;
import dev.hourglass.node.job.Job;
import dev.hourglass.node.job.NextStep;
import dev.hourglass.node.job.RetryPolicy;
import dev.hourglass.node.shard.ShardOwnership;
import dev.hourglass.node.timeindex.FireTimeIndex;
import dev.hourglass.node.timeindex.IndexEntry;
import dev.hourglass.node.timeindex.SortedFireTimeIndex;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The firing engine of one node: it keeps the owned shards' near-term jobs in memory, claims them
 * at their fire time, delivers them and writes the results.
 *
 * <p>Threads: one firing thread waits for the earliest due time and hands batches of due jobs to
 * {@code claimThreads} claimers; dispatchers complete deliveries on their own threads; one writer
 * thread writes results in batches; one scheduler thread runs the loader, the catch-up sweep, the
 * timeout sweep and the service refresh.
 *
 * <p>Never early: a job leaves memory only when the clock has reached its due time, and the claim
 * re-checks {@code due_at <= now} in the database. At most once per attempt: the claim is a
 * conditional update and opens the attempt's execution-log row under its primary key.
 */
public final class FiringEngine {
    private static final Logger LOG = LoggerFactory.getLogger(FiringEngine.class);
    private static final long MAX_WAIT_MS = 250;

    private final AttemptStore store;
    private final ServiceCatalog catalog;
    private final Dispatcher dispatcher;
    private final ShardOwnership shards;
    private final Clock clock;
    private final EngineSettings settings;
    private final String nodeId;
    private final FiringListener listener;

    private final ReentrantLock wakeLock = new ReentrantLock();
    private final Condition wake = wakeLock.newCondition();
    private final FireTimeIndex index;
    private final WindowLoader loader;
    private final ServiceCapacity capacity;
    private final DispatchGates gates = new DispatchGates();
    private final Map<Long, Integer> inFlight = new ConcurrentHashMap<>();
    private final OutcomeWriter writer;
    private final Semaphore claimSlots;

    private final Object sendTimerLock = new Object();
    private final Map<Long, WaitingSend> waitingToSend = new ConcurrentHashMap<>();
    private ScheduledExecutorService sendTimer;
    private ExecutorService claimers;
    private ScheduledExecutorService housekeeping;
    private Thread firingThread;
    private Thread writerThread;
    private volatile boolean firing;
    private volatile AttemptStore reportedResults;

    public FiringEngine(
            AttemptStore store,
            ServiceCatalog catalog,
            Dispatcher dispatcher,
            ShardOwnership shards,
            Clock clock,
            EngineSettings settings,
            String nodeId,
            FiringListener listener) {
        this.store = store;
        this.reportedResults = store;
        this.catalog = catalog;
        this.dispatcher = dispatcher;
        this.shards = shards;
        this.clock = clock;
        this.settings = settings;
        this.nodeId = nodeId;
        this.listener = listener;
        this.index = new SortedFireTimeIndex(settings.indexCapacity(), this::signal);

        this.writer = new OutcomeWriter(store, clock, settings.resultBatch(), this::afterWrite, listener);
        this.claimSlots = new Semaphore(settings.claimThreads());
        this.capacity = new ServiceCapacity(this::maxInFlightOf, entries -> entries.forEach(index::offer));
        this.loader = new WindowLoader(store, index, shards, clock, settings, capacity::parked);
        shards.onChange(owned -> {
            index.removeShards(s -> !owned.contains(s));
            loader.resetWatermark();
            ScheduledExecutorService h = housekeeping;
            if (h != null && !h.isShutdown()) {
                h.execute(quietly("load", loader::extend)); // newly owned shards: load them now, not next tick
            }
        });
    }

    public synchronized void start() {
        firing = true;
        claimers = Executors.newFixedThreadPool(settings.claimThreads(), named("hourglass-claim"));
        sendTimer = Executors.newSingleThreadScheduledExecutor(named("hourglass-send-timer"));
        housekeeping = Executors.newSingleThreadScheduledExecutor(named("hourglass-housekeeping"));
        writerThread = named("hourglass-results").newThread(writer);
        writerThread.start();
        catalog.refresh();
        loader.extend();
        housekeeping.scheduleWithFixedDelay(
                quietly("load", loader::extend),
                settings.loadIntervalMs(),
                settings.loadIntervalMs(),
                TimeUnit.MILLISECONDS);
        housekeeping.scheduleWithFixedDelay(
                quietly("catch-up", loader::catchUp), 0, settings.catchUpIntervalMs(), TimeUnit.MILLISECONDS);
        housekeeping.scheduleWithFixedDelay(
                quietly("timeout sweep", this::sweepTimeouts),
                settings.timeoutSweepIntervalMs(),
                settings.timeoutSweepIntervalMs(),
                TimeUnit.MILLISECONDS);
        housekeeping.scheduleWithFixedDelay(quietly("service refresh", catalog::refresh), 5, 5, TimeUnit.SECONDS);
        firingThread = named("hourglass-firing").newThread(this::fireLoop);
        firingThread.start();
    }

    /**
     * Graceful stop: claims nothing more, waits up to {@code graceMs} for deliveries under way, then
     * writes every result it has. Jobs still unanswered stay RUNNING and are re-delivered after their
     * timeout by whichever node owns them then.
     */
    public void stop(long graceMs) {
        firing = false;
        signal();
        joinQuietly(firingThread, 5_000);
        shutdown(claimers, 10_000);
        shutdown(sendTimer, settings.claimLeadMs() + 1_000); // claimed ahead: still sent at their time
        long deadline = System.currentTimeMillis() + graceMs;
        while (!inFlight.isEmpty() && System.currentTimeMillis() < deadline) {
            sleepQuietly(20);
        }
        shutdown(housekeeping, 5_000);
        writer.finish();
        joinQuietly(writerThread, 10_000);
    }

    /** Stops every thread at once and writes nothing more: what a crash leaves behind (for tests). */
    public void halt() {
        firing = false;
        writer.finish();
        if (writerThread != null) {
            writerThread.interrupt();
        }
        if (firingThread != null) {
            firingThread.interrupt();
        }
        if (claimers != null) {
            claimers.shutdownNow();
        }
        if (sendTimer != null) {
            sendTimer.shutdownNow();
        }
        if (housekeeping != null) {
            housekeeping.shutdownNow();
        }
    }

    /** A job this node made due (submit, reschedule, retry, fire now): into memory if it is near. */
    public void admit(Job job) {
        if (job.state() == JobState.DELAYED) {
            loader.admit(new IndexEntry(job.id(), job.dueAt(), job.serviceKey(), job.shard()));
        }
    }

    /**
     * A job canceled or moved away: out of memory (claiming it would fail anyway; this frees room).
     * A job claimed ahead and waiting for its fire time is not sent.
     */
    public void forget(long jobId) {
        index.remove(jobId);
        WaitingSend waiting;
        synchronized (sendTimerLock) {
            waiting = waitingToSend.remove(jobId);
        }
        if (waiting != null && waiting.future().cancel(false)) {
            inFlight.remove(jobId);
            capacity.release(waiting.serviceKey());
        }
    }

    private record WaitingSend(ScheduledFuture<?> future, String serviceKey) {}

    /** Whether a job due then would be in this node's memory: the placement rule's question. */
    public boolean isWithinLoadedWindow(long dueAt) {
        return loader.isWithinWindow(dueAt);
    }

    /**
     * Reported results ({@link #recordNow}) arrive on API threads: written through {@code store}
     * (the API's connections), a burst of them waits for API connections, never for the engine's.
     * Until this is called they go through the engine's own store.
     */
    public void writeReportedResultsThrough(AttemptStore store) {
        this.reportedResults = store;
    }

    /** Writes one result now (a reported result), then puts a retry back into memory. */
    public void recordNow(AttemptResult result) {
        reportedResults.record(List.of(result), clock.millis());
        afterWrite(List.of(result));
    }

    /** Jobs held in memory: in the fire-time index, or due and parked while their service is full. */
    public int inMemory() {
        return index.size() + capacity.parked();
    }

    public int inFlight() {
        return inFlight.size();
    }

    public long watermark() {
        return loader.watermark();
    }

    public int pendingResults() {
        return writer.pending();
    }

    // ---- firing --------------------------------------------------------------------------------

    private void signal() {
        wakeLock.lock();
        try {
            wake.signalAll();
        } finally {
            wakeLock.unlock();
        }
    }

    private void fireLoop() {
        while (firing) {
            try {
                long horizon = clock.millis() + settings.claimLeadMs();
                long next = index.nextDueAt();
                if (next > horizon) {
                    awaitWake(Math.min(next - horizon, MAX_WAIT_MS));
                    continue;
                }
                claimSlots.acquire();
                boolean handedOver = false;
                try {
                    List<IndexEntry> due =
                            index.pollDue(clock.millis() + settings.claimLeadMs(), settings.claimBatch());
                    List<IndexEntry> ready = capacity.admit(due);
                    if (!ready.isEmpty()) {
                        claimers.execute(() -> {
                            try {
                                claimAndFire(ready);
                            } finally {
                                claimSlots.release();
                            }
                        });
                        handedOver = true;
                    }
                } finally {
                    if (!handedOver) {
                        claimSlots.release(); // a slot kept by a failed round would stop firing for good
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.error("firing loop error", e);
                sleepQuietly(100);
            }
        }
    }

    private void awaitWake(long ms) throws InterruptedException {
        wakeLock.lock();
        try {
            wake.awaitNanos(TimeUnit.MILLISECONDS.toNanos(Math.max(ms, 1)));
        } finally {
            wakeLock.unlock();
        }
    }

    private void claimAndFire(List<IndexEntry> ready) {
        List<Long> ids = new ArrayList<>(ready.size());
        ready.forEach(e -> ids.add(e.jobId()));
        long now = clock.millis();
        AttemptStore.Claim claim;
        try {
            long started = System.nanoTime();
            claim = store.claim(ids, nodeId, now, now + settings.claimLeadMs());
            listener.claimed(ids.size(), System.nanoTime() - started);
        } catch (RuntimeException e) {
            LOG.error("claiming {} jobs failed; they stay DELAYED and are tried again: {}", ids.size(), e.toString());
            long retryAt = now + 1_000;
            for (IndexEntry entry : ready) {
                capacity.release(entry.serviceKey());
                index.offer(new IndexEntry(entry.jobId(), retryAt, entry.serviceKey(), entry.shard()));
            }
            return;
        }
        Map<Long, IndexEntry> unclaimed = new java.util.HashMap<>(ready.size());
        ready.forEach(e -> unclaimed.put(e.jobId(), e));
        for (Job job : claim.claimed()) {
            unclaimed.remove(job.id());
            deliver(job, Math.max(job.fireAt(), now)); // the store logged the attempt as fired then
        }
        // not claimed: fired elsewhere, canceled, rescheduled later, or expired
        unclaimed.values().forEach(e -> capacity.release(e.serviceKey()));
    }

    /** Sends a claimed attempt at {@code sendAt} (never earlier), through its service's gate. */
    private void deliver(Job job, long sendAt) {
        inFlight.put(job.id(), job.attempts());
        long wait = sendAt - clock.millis();
        if (wait <= 0) {
            sendThroughGate(job);
            return;
        }
        synchronized (sendTimerLock) {
            ScheduledFuture<?> future = sendTimer.schedule(() -> sendWhenDue(job, sendAt), wait, TimeUnit.MILLISECONDS);
            waitingToSend.put(job.id(), new WaitingSend(future, job.serviceKey()));
        }
    }

    private void sendWhenDue(Job job, long sendAt) {
        long early = sendAt - clock.millis();
        if (early > 0) { // the timer counts monotonic time, the clock is wall time: never send early
            synchronized (sendTimerLock) {
                ScheduledFuture<?> future =
                        sendTimer.schedule(() -> sendWhenDue(job, sendAt), early, TimeUnit.MILLISECONDS);
                waitingToSend.put(job.id(), new WaitingSend(future, job.serviceKey()));
            }
            return;
        }
        synchronized (sendTimerLock) {
            waitingToSend.remove(job.id());
        }
        sendThroughGate(job);
    }

    /**
     * Never throws: a claimed attempt that cannot be sent (its service could not be read) ends as
     * an ERROR at once and is retried, instead of holding its claim slot and its in-flight mark —
     * which would keep the timeout sweep away from it — for ever.
     */
    private void sendThroughGate(Job job) {
        Optional<ServiceDefinition> service;
        try {
            service = catalog.find(job.app(), job.service());
        } catch (RuntimeException e) {
            LOG.warn("job {} attempt {}: its service could not be read: {}", job.id(), job.attempts(), e.toString());
            ended(job, Optional.empty(), DeliveryResult.error("service lookup failed: " + e));
            return;
        }
        int maxInFlight = service.map(ServiceDefinition::maxInFlight).orElse(1_000);
        gates.submit(job.serviceKey(), maxInFlight, () -> send(job, service));
    }

    /**
     * The service's limit as the claim bound reads it; when the service cannot be read the default
     * stands in (a bound for batching, not the receiver's limit: the gate applies that one).
     */
    private int maxInFlightOf(String serviceKey) {
        try {
            return catalog.findByKey(serviceKey)
                    .map(ServiceDefinition::maxInFlight)
                    .orElse(1_000);
        } catch (RuntimeException e) {
            LOG.warn("service {} could not be read for its claim bound: {}", serviceKey, e.toString());
            return 1_000;
        }
    }

    /** Runs at the gate; never throws (the gate's slot is released when the attempt ends). */
    private void send(Job job, Optional<ServiceDefinition> service) {
        CompletionStage<DeliveryResult> stage;
        try {
            long firedAt = clock.millis();
            listener.fired(job, firedAt);
            stage = service.isPresent()
                    ? dispatcher.deliver(new Delivery(job, service.get(), firedAt))
                    : CompletableFuture.completedFuture(
                            DeliveryResult.error("service " + job.service() + " not found"));
        } catch (RuntimeException e) {
            stage = CompletableFuture.completedFuture(DeliveryResult.error(e.toString()));
        }
        stage.whenComplete((result, error) -> {
            gates.release(job.serviceKey());
            ended(job, service, error != null ? DeliveryResult.error(error.toString()) : result);
        });
    }

    /** An attempt ended: frees its claim slot and in-flight mark, then queues its result. */
    private void ended(Job job, Optional<ServiceDefinition> service, DeliveryResult r) {
        capacity.release(job.serviceKey());
        inFlight.remove(job.id(), job.attempts());
        if (r.outcome() == AttemptOutcome.SUCCESS
                && service.isPresent()
                && service.get().ackMode() == AckMode.CONSUMER) {
            return; // delivered; stays RUNNING until the consumer reports, or its timeout
        }
        long now = clock.millis();
        Backoff backoff = service.map(ServiceDefinition::backoff).orElse(Backoff.DEFAULT);
        NextStep next = RetryPolicy.next(job.budget(), r.outcome(), r.retryAfterMs(), backoff, now);
        writer.submit(new AttemptResult(
                job.id(), job.attempts(), r.outcome(), r.message(), now, next, job.shard(), job.serviceKey()));
    }

    private void afterWrite(List<AttemptResult> written) {
        for (AttemptResult r : written) {
            if (!r.next().isFinal()) {
                loader.admit(new IndexEntry(r.jobId(), r.next().retryAt(), r.serviceKey(), r.shard()));
            }
            listener.ended(r);
        }
    }

    /** RUNNING jobs past their deadline that no delivery of this node will answer: TIMEOUT. */
    private void sweepTimeouts() {
        long now = clock.millis();
        for (Job job : store.findTimedOut(shards.current(), now, settings.claimBatch())) {
            Integer mine = inFlight.get(job.id());
            if (mine != null && mine == job.attempts()) {
                continue; // our own delivery is still under way and will report
            }
            Backoff backoff = catalog.find(job.app(), job.service())
                    .map(ServiceDefinition::backoff)
                    .orElse(Backoff.DEFAULT);
            NextStep next = RetryPolicy.next(job.budget(), AttemptOutcome.TIMEOUT, null, backoff, now);
            writer.submit(new AttemptResult(
                    job.id(),
                    job.attempts(),
                    AttemptOutcome.TIMEOUT,
                    "no result within " + job.timeoutMs() + " ms",
                    now,
                    next,
                    job.shard(),
                    job.serviceKey()));
        }
    }

    // ---- plumbing ------------------------------------------------------------------------------

    private static Runnable quietly(String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.warn("{} failed: {}", what, e.toString());
            }
        };
    }

    private static java.util.concurrent.ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private static void shutdown(ExecutorService executor, long waitMs) {
        if (executor == null) {
            return;
        }
        executor.shutdown();
        try {
            if (!executor.awaitTermination(waitMs, TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private static void joinQuietly(Thread t, long ms) {
        if (t == null) {
            return;
        }
        try {
            t.join(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
