package dev.hourglass.node.firing;

import dev.hourglass.api.JobState;
import dev.hourglass.node.background.Guarded;
import dev.hourglass.node.background.Lifecycle;
import dev.hourglass.node.background.PeriodicTask;
import dev.hourglass.node.background.TaskScheduler;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.Dispatcher;
import dev.hourglass.node.core.port.FiringControl;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.port.PulledJobSignals;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.service.RateShare;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.shard.ShardOwnership;
import dev.hourglass.node.core.timeindex.FireTimeIndex;
import dev.hourglass.node.core.timeindex.IndexEntry;
import dev.hourglass.node.core.timeindex.SortedFireTimeIndex;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The firing engine of one node: it keeps the owned shards' near-term jobs in memory
 * ({@link WindowLoader}), claims them shortly before their fire time, hands the claimed attempts to
 * the {@link AttemptSender} (which sends them on time, fenced), and writes the results
 * ({@link OutcomeWriter}); the {@link TimeoutSweep} ends attempts nobody will answer for.
 *
 * <p>Where its work runs ({@link EngineSchedulers}, passed in: threads in the node, one manual
 * scheduler in unit tests): claim rounds, planned for the moment the earliest due job is half a
 * claim lead away, hand batches of due jobs to the claimers; dispatchers complete deliveries on
 * their own threads; the result writer writes results in batches; the fence writes the sender's
 * give-backs and deadline renewals (never on the way of a send); the send timer releases
 * claimed-ahead attempts at their fire time; housekeeping runs the named periodic tasks ({@link
 * LoadWindowTask}, {@link CatchUpTask}, {@link TimeoutSweep}, {@link ServiceRefreshTask}; {@link
 * SilentSendWatchTask} on the send timer).
 *
 * <p>Lifecycle: LATENT → STARTED ({@link #start()}, once) → CLOSED ({@link #stop} or {@link #halt}).
 *
 * <p>Never early: a job leaves memory only when the clock has reached its due time minus the claim
 * lead, the claim re-checks {@code due_at <= now + lead} in the database, and the sender holds the
 * attempt until its fire time. At most once per attempt: the claim is a conditional update of the
 * job's row (its attempt number and state); the attempt's execution-log row, written when it ends,
 * is keyed by (job, attempt).
 */
public final class FiringEngine implements FiringControl {
    private static final Logger LOG = LoggerFactory.getLogger(FiringEngine.class);
    /** A round looks again at least this often, whatever it expects (a clock set forward, a lost signal). */
    private static final long MAX_WAIT_MS = 250;
    /** How often the claim rounds look again for the shard lease while it is not held. */
    private static final long LEASE_WAIT_MS = 20;
    /** How long a graceful stop lets the result writer retry a database that refuses its writes. */
    private static final long WRITER_STOP_MS = 10_000;
    /**
     * After gaining shards, when to read them again: their previous owner gives back the attempts
     * it claimed but had not sent as soon as it hears of the same assignment, which may be just
     * after this node's first read. These reads find them DELAYED; without them such a job would
     * wait for the next catch-up sweep (up to {@code catchUpIntervalMs} late).
     */
    static final long[] HANDOFF_REREAD_MS = {300, 1_000};

    /** The engine's ports: storage, the services, delivery and what it reports. */
    public record Ports(AttemptStore store, ServiceLookup catalog, Dispatcher dispatcher, FiringListener listener) {}

    private final AttemptStore store;
    private volatile AttemptStore reportedResults;
    private volatile PulledJobSignals pulledJobs = PulledJobSignals.NONE;
    private final ServiceLookup catalog;
    private final ShardOwnership shards;
    private final Clock clock;
    private final EngineSettings settings;
    private final ClusterContext cluster;
    private final FiringListener listener;
    private final EngineSchedulers run;
    private final Lifecycle lifecycle = new Lifecycle("firing engine");

    private final FireTimeIndex index;
    private final WindowLoader loader;
    private final ServiceCapacity capacity;
    private final OutcomeWriter writer;
    private final AttemptSender sender;
    private final TimeoutSweep timeoutSweep;
    private final Semaphore claimSlots;

    /** The next claim round, planned on {@code run.firing()}; guarded by {@code roundLock}. */
    private final Object roundLock = new Object();

    private long roundPlannedAt = Long.MAX_VALUE;
    private TaskScheduler.Scheduled plannedRound;
    /** Which plan is current: a round clears the plan only if it is the one planned last. */
    private long roundGeneration;
    /** A round found every claim slot taken: the claim that frees one plans the next round. */
    private final AtomicBoolean roundWaitsForSlot = new AtomicBoolean();
    /** When the rounds saw the shard lease lapse ({@link TaskScheduler#nanoTime()}; 0: held). Rounds only. */
    private long leaseLapsedAt;

    private final List<TaskScheduler.Scheduled> housekeepingPlans = new ArrayList<>();
    private TaskScheduler.Scheduled silentSendWatch;
    private volatile boolean firing;
    private final Object ownedLock = new Object();
    private Set<Integer> ownedBefore;

    public FiringEngine(
            Ports ports,
            ShardOwnership shards,
            ClusterContext cluster,
            Clock clock,
            EngineSettings settings,
            EngineSchedulers schedulers) {
        this.store = ports.store();
        this.reportedResults = ports.store();
        this.catalog = ports.catalog();
        this.shards = shards;
        this.clock = clock;
        this.settings = settings;
        this.cluster = cluster;
        this.listener = ports.listener();
        this.run = schedulers;
        this.index = new SortedFireTimeIndex(settings.indexCapacity(), this::earlierHead);
        this.writer = new OutcomeWriter(
                store,
                schedulers.results(),
                clock,
                settings.resultBatch(),
                settings.resultLingerMs(),
                this::afterWrite,
                listener);
        this.claimSlots = new Semaphore(settings.claimThreads());
        this.capacity = new ServiceCapacity(this::claimBoundOf, this::reoffer);
        this.loader = new WindowLoader(
                store,
                index,
                shards,
                clock,
                settings,
                capacity::parked,
                this::heldOutsideIndex,
                () -> capacity.saturated(WindowLoader.MAX_SKIPPED_SERVICES),
                catalog::pausedServiceKeys,
                catalog::pulledServiceKeys,
                e -> pulledJobs.due(e.serviceKey(), e.dueAt()));
        this.sender = new AttemptSender(
                store,
                cluster.nodeId(),
                catalog,
                ports.dispatcher(),
                shards,
                clock,
                listener,
                cluster.limitShare(),
                capacity::release,
                writer::submit,
                job -> loader.admit(new IndexEntry(job.id(), job.fireAt(), job.serviceKey(), job.shard())),
                schedulers.sendTimer(),
                schedulers.fence());
        this.timeoutSweep = new TimeoutSweep(
                store,
                catalog,
                shards,
                clock,
                cluster,
                (jobId, attempt) -> sender.isInFlight(jobId, attempt) || writer.isPending(jobId, attempt),
                writer::submit,
                settings.claimBatch());
        this.ownedBefore = Set.copyOf(shards.current());
        shards.onChange(this::shardsChanged);
    }

    /** Parked at a full service, or in a claim under way: a re-read leaves it where it is. */
    private boolean heldOutsideIndex(IndexEntry entry) {
        return capacity.isParked(entry) || sender.isBeingClaimed(entry.jobId());
    }

    /**
     * Runs on the coordinator's thread: memory only, never the database (the loader's reads are
     * planned on the housekeeping scheduler).
     */
    private void shardsChanged(List<Integer> owned) {
        Set<Integer> kept = Set.copyOf(owned);
        boolean gained;
        synchronized (ownedLock) { // the coordinator's thread, or a stop or suspension give-up
            gained = !ownedBefore.containsAll(kept);
            ownedBefore = kept;
        }
        index.removeShards(s -> !kept.contains(s));
        sender.shardsLost(kept);
        capacity.dropShards(kept);
        loader.shardsChanged(owned);
        timeoutSweep.watchOrphans();
        if (firing) {
            housekeep(0, "load", loader::extend); // newly owned shards: load them now, not next tick
            if (gained) {
                for (long after : HANDOFF_REREAD_MS) {
                    housekeep(after, "hand-off re-read", loader::catchUp);
                }
            }
        }
    }

    /** LATENT → STARTED: starts the schedulers, reads the window, plans the periodic tasks and the first round. */
    public void start() {
        lifecycle.start();
        run.start(); // before firing: nothing is planned on a scheduler that has not started
        firing = true;
        catalog.refresh();
        loader.extend();
        TaskScheduler h = run.housekeeping();
        synchronized (housekeepingPlans) {
            housekeepingPlans.add(PeriodicTask.every(
                    h, new LoadWindowTask(loader), settings.loadIntervalMs(), settings.loadIntervalMs()));
            housekeepingPlans.add(PeriodicTask.every(h, new CatchUpTask(loader), 0, settings.catchUpIntervalMs()));
            housekeepingPlans.add(PeriodicTask.every(
                    h, timeoutSweep, settings.timeoutSweepIntervalMs(), settings.timeoutSweepIntervalMs()));
            housekeepingPlans.add(PeriodicTask.every(
                    h,
                    new ServiceRefreshTask(catalog, this::servicesChanged),
                    ServiceRefreshTask.INTERVAL_MS,
                    ServiceRefreshTask.INTERVAL_MS));
        }
        silentSendWatch = PeriodicTask.every(run.sendTimer(), new SilentSendWatchTask(sender), 1_000, 1_000);
        planRound(clock.millis());
    }

    /**
     * Graceful stop: claims nothing more, waits up to {@code graceMs} for deliveries under way, then
     * writes every result it has. A delivery still unanswered then ends as a TIMEOUT that says so
     * (retried with the service's backoff by whichever node owns the job then): the receiver may
     * still complete it, so it may see the job twice. Attempts claimed and not yet sent were given
     * back when the shards went (the node gives them up before it stops its engine). The node
     * leaves the cluster only after this returns (docs/cluster.md, "Stopping a node"): results
     * still unwritten then (the database refusing writes) are, for the new owners, attempts of a
     * node that left, and are sent again. Every wait is on the schedulers' monotonic time.
     */
    public void stop(long graceMs) {
        if (!lifecycle.close()) {
            return;
        }
        TaskScheduler timing = run.sendTimer();
        long deadline = timing.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs);
        firing = false;
        cancelPlannedRound();
        cancelHousekeeping(); // no more reads: one under way ends while deliveries finish
        run.firing().close(5_000);
        run.claims().close(10_000);
        if (silentSendWatch != null) {
            silentSendWatch.cancel();
        }
        run.sendTimer().close(settings.claimLeadMs() + 1_000); // claimed ahead: still sent at their time
        timing.awaitUntil(
                () -> sender.inFlight() == 0, Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - timing.nanoTime())));
        int abandoned = sender.abandonSends("no answer before node " + cluster.nodeId()
                + " stopped (engine.shutdownGraceMs " + graceMs + " ms): the receiver may still complete it");
        if (abandoned > 0) {
            LOG.warn(
                    "{} deliveries still unanswered after the stop's grace of {} ms: ended as TIMEOUTs",
                    abandoned,
                    graceMs);
        }
        run.housekeeping().close(5_000);
        sender.fence().finish(5_000);
        run.fence().close(1_000);
        writer.finish(WRITER_STOP_MS);
        run.results().close(1_000);
    }

    /** Stops every scheduler at once and writes nothing more: what a crash leaves behind (for tests). */
    public void halt() {
        lifecycle.close();
        firing = false;
        for (TaskScheduler s : run.all()) {
            s.close(0);
        }
    }

    /** A job this node made due (submit, reschedule, retry, fire now): into memory if it is near. */
    @Override
    public void admit(Job job) {
        if (job.state() == JobState.DELAYED) {
            loader.admit(new IndexEntry(job.id(), job.dueAt(), job.serviceKey(), job.shard()));
        }
    }

    /**
     * A job canceled or moved away through this node: out of memory (claiming it would fail anyway;
     * this frees room). A claimed attempt of it was withheld by the change itself ({@link #withhold}).
     */
    @Override
    public void forget(long jobId) {
        index.remove(jobId);
    }

    /**
     * Keeps this node's claimed attempt of the job from leaving, if it has not left yet: asked by a
     * cancel through any node while it holds the job's row lock ({@link AttemptHolders}). Memory
     * only; never waits.
     */
    public AttemptHolders.Answer withhold(long jobId, int attempt) {
        return sender.withhold(jobId, attempt);
    }

    /** Whether a job due then would be in this node's memory: the placement rule's question. */
    @Override
    public boolean isWithinLoadedWindow(long dueAt) {
        return loader.isWithinWindow(dueAt);
    }

    /**
     * Who hears of the PULL jobs this node makes due (they never enter the engine's memory): the
     * pull consumers waiting on this node.
     */
    public void signalPulledJobsTo(PulledJobSignals signals) {
        this.pulledJobs = signals;
    }

    /**
     * Reported results arrive on API threads: written through {@code store} (the API's
     * connections), a burst of them waits for API connections, never for the engine's. Until this
     * is called they go through the engine's own store.
     */
    public void writeReportedResultsThrough(AttemptStore store) {
        this.reportedResults = store;
    }

    /**
     * Consumers' results (asynchronous acknowledgement, pull consumers), written now; a retry goes
     * back into memory (a PULL job's to its waiting consumers). The write is conditional on each
     * attempt: a result for an attempt that is no longer current changes nothing.
     */
    @Override
    public Set<Long> recordReported(List<AttemptResult> results) {
        if (results.isEmpty()) {
            return Set.of();
        }
        Set<Long> ended = reportedResults.record(results, clock.millis());
        afterWrite(results.stream().filter(r -> ended.contains(r.jobId())).toList());
        return ended;
    }

    /** A node left the cluster: its unanswered attempts are looked for (see {@link TimeoutSweep}). */
    public void nodeLeft(String nodeId) {
        timeoutSweep.watchOrphans();
    }

    /** Jobs held in memory: in the fire-time index, or due and parked while their service is full. */
    public int inMemory() {
        return index.size() + capacity.parked();
    }

    public int inFlight() {
        return sender.inFlight();
    }

    /** Deliveries under way on this node per service key ({@code app/service}). */
    public java.util.Map<String, Integer> inFlightByService() {
        return sender.inFlightByService();
    }

    public long watermark() {
        return loader.watermark();
    }

    public int pendingResults() {
        return writer.pending();
    }

    // ---- claim rounds ----------------------------------------------------------------------------

    /** The index's head moved earlier (any thread, after the index's lock is released). */
    private void earlierHead() {
        planRound(roundAt());
    }

    /**
     * A round starts when the earliest job is half the lead away and claims every job due within
     * the whole lead: at a steady rate that is half a lead's worth of jobs in one transaction
     * instead of one transaction per job, and the claim still has half the lead to commit before
     * the first of them is due.
     */
    private long roundAt() {
        long next = index.nextDueAt();
        return next == Long.MAX_VALUE ? Long.MAX_VALUE : next - settings.claimLeadMs() / 2;
    }

    /**
     * Plans a round for {@code at}, unless one is planned as early already. Any thread: a round
     * clears its plan before it looks at the index, so a head that moves earlier during a round
     * plans the next one and is never missed.
     */
    private void planRound(long at) {
        synchronized (roundLock) {
            if (!firing || at >= roundPlannedAt) {
                return;
            }
            long generation = roundGeneration + 1;
            // planned first, recorded after: a scheduler that refuses leaves the old plan in force
            TaskScheduler.Scheduled planned = run.firing().at(at, () -> round(generation));
            if (plannedRound != null) {
                plannedRound.cancel();
            }
            roundGeneration = generation;
            roundPlannedAt = at;
            plannedRound = planned;
        }
    }

    /**
     * One claim round, then the plan of the next. The next is planned whatever this one met (an
     * Error included): a round that planned nothing would leave jobs in memory unclaimed until an
     * earlier one arrived.
     */
    private void round(long generation) {
        synchronized (roundLock) {
            if (generation == roundGeneration) { // else a later plan stands: leave it tracked
                roundPlannedAt = Long.MAX_VALUE;
                plannedRound = null;
            }
        }
        if (!firing) {
            return;
        }
        long next = clock.millis() + 100;
        try {
            next = claimRound();
        } catch (RuntimeException e) {
            LOG.error("claim round error", e);
        } catch (Error e) {
            LOG.error("claim round error", e);
            throw e;
        } finally {
            planRound(Math.min(next, clock.millis() + MAX_WAIT_MS));
        }
    }

    private void cancelPlannedRound() {
        synchronized (roundLock) {
            if (plannedRound != null) {
                plannedRound.cancel();
            }
            plannedRound = null;
            roundPlannedAt = Long.MAX_VALUE;
        }
    }

    /** One round: hands the jobs due within the claim lead to a claimer; returns when to look next. */
    private long claimRound() {
        long now = clock.millis();
        long roundAt = roundAt();
        if (roundAt > now) {
            return roundAt;
        }
        if (!shards.leaseHeld()) { // out of touch with the cluster: claim nothing until back
            if (leaseLapsedAt == 0 && !shards.current().isEmpty()) {
                leaseLapsedAt = run.firing().nanoTime();
                LOG.warn("shard lease lapsed (no answer from ZooKeeper): claiming and sending nothing");
            }
            return now + LEASE_WAIT_MS;
        }
        if (leaseLapsedAt != 0) { // what the sender gave back meanwhile is in the database only
            LOG.info(
                    "shard lease held again after {} ms",
                    TimeUnit.NANOSECONDS.toMillis(run.firing().nanoTime() - leaseLapsedAt));
            leaseLapsedAt = 0;
            housekeep(0, "re-read after the lease came back", loader::catchUp);
        }
        if (!takeClaimSlot()) {
            return Long.MAX_VALUE; // the claim that frees a slot plans the next round
        }
        boolean handedOver = false;
        try {
            Set<String> pulled = catalog.pulledServiceKeys();
            List<IndexEntry> ready;
            List<Long> ids = new ArrayList<>();
            // polled, parked or marked in one step for a re-read (see WindowLoader.handOff): between
            // the poll and the mark a job is neither in the index nor in a claim
            synchronized (loader.handOff) {
                List<IndexEntry> due = index.pollDue(clock.millis() + settings.claimLeadMs(), settings.claimBatch());
                List<IndexEntry> owned = new ArrayList<>(due.size());
                for (IndexEntry e : due) {
                    // one that moved away meanwhile is its new owner's; a PULL job is its consumers'
                    // (one of a PULL service not known here yet is given back by the sender)
                    if (shards.owns(e.shard()) && !pulled.contains(e.serviceKey())) {
                        owned.add(e);
                    }
                }
                ready = capacity.admit(owned);
                ready.forEach(e -> ids.add(e.jobId()));
                // marked before the hand-over: a re-read meanwhile must not offer them again (see heldOutsideIndex)
                sender.claiming(ids);
            }
            if (!ready.isEmpty()) {
                try {
                    run.claims().execute(() -> {
                        try {
                            claimAndFire(ready, ids);
                        } finally {
                            sender.claimsTaken(ids);
                            releaseClaimSlot();
                        }
                    });
                    handedOver = true;
                } finally {
                    if (!handedOver) {
                        sender.claimsTaken(ids);
                    }
                }
            }
        } finally {
            if (!handedOver) {
                releaseClaimSlot(); // a slot kept by a failed round would stop firing for good
            }
        }
        return now; // at once: more may be due
    }

    private boolean takeClaimSlot() {
        if (claimSlots.tryAcquire()) {
            return true;
        }
        roundWaitsForSlot.set(true);
        if (claimSlots.tryAcquire()) { // freed between the two looks: its claim saw no waiting round
            roundWaitsForSlot.set(false);
            return true;
        }
        return false;
    }

    private void releaseClaimSlot() {
        claimSlots.release();
        if (roundWaitsForSlot.compareAndSet(true, false)) {
            planRound(clock.millis());
        }
    }

    /** Runs {@code task} on the housekeeping scheduler {@code afterMs} from now, while the engine fires. */
    private void housekeep(long afterMs, String what, Runnable task) {
        if (firing) {
            run.housekeeping().after(afterMs, Guarded.of(what, task));
        }
    }

    private void cancelHousekeeping() {
        synchronized (housekeepingPlans) {
            housekeepingPlans.forEach(TaskScheduler.Scheduled::cancel);
            housekeepingPlans.clear();
        }
    }

    private void claimAndFire(List<IndexEntry> ready, List<Long> ids) {
        if (!shards.leaseHeld()) { // lapsed since the firing loop looked (a freeze, a slow slot)
            for (IndexEntry entry : ready) {
                capacity.release(entry.serviceKey());
                loader.offer(entry);
            }
            return;
        }
        claimAndAccept(ready, ids);
    }

    private void claimAndAccept(List<IndexEntry> ready, List<Long> ids) {
        long now = clock.millis();
        AttemptStore.Claim claim;
        try {
            long started = run.claims().nanoTime();
            claim = store.claim(ids, cluster.nodeId(), now, now + settings.claimLeadMs());
            listener.claimed(ids.size(), run.claims().nanoTime() - started);
        } catch (RuntimeException e) {
            LOG.error("claiming {} jobs failed; they stay DELAYED and are tried again: {}", ids.size(), e.toString());
            long retryAt = now + 1_000;
            for (IndexEntry entry : ready) {
                capacity.release(entry.serviceKey());
                loader.offer(new IndexEntry(entry.jobId(), retryAt, entry.serviceKey(), entry.shard()));
            }
            return;
        }
        Map<Long, IndexEntry> unclaimed = new HashMap<>(ready.size());
        ready.forEach(e -> unclaimed.put(e.jobId(), e));
        for (Job job : claim.claimed()) {
            unclaimed.remove(job.id());
            sender.accept(job, Math.max(job.fireAt(), now)); // the store planned the attempt for then
        }
        // not claimed: fired elsewhere, canceled, rescheduled later, or expired
        unclaimed.values().forEach(e -> capacity.release(e.serviceKey()));
    }

    /**
     * How many jobs of the service this node may hold claimed: twice its share of {@code
     * maxInFlight} (see {@link ServiceCapacity}), or of about a second of its rate limit if that is
     * less; none while the service is paused, so its due jobs wait parked, unclaimed, until it
     * resumes.
     */
    private int claimBoundOf(String serviceKey) {
        ServiceDefinition service = serviceOrNull(serviceKey);
        if (service != null && service.paused()) {
            return 0;
        }
        int limit = service == null ? ServiceDefinition.DEFAULT_MAX_IN_FLIGHT : service.maxInFlight();
        int share = Math.max(1, cluster.limitShare().applyAsInt(limit));
        if (service != null && service.flow().rateLimit() != null) {
            // no more claimed than its bucket lets start in about a second: the rest would wait
            // at the gate for tokens, holding claims
            RateShare rate = RateShare.of(service.flow().rateLimit(), cluster.limitShare());
            share = Math.min(share, Math.max(1, rate.claimAhead()));
        }
        return 2 * share;
    }

    /**
     * The service as the claim bound reads it; when it cannot be read the defaults stand in (a
     * bound for batching, not the receiver's limit: the gate applies that one).
     */
    private ServiceDefinition serviceOrNull(String serviceKey) {
        try {
            return catalog.findByKey(serviceKey).orElse(null);
        } catch (RuntimeException e) {
            LOG.warn("service {} could not be read for its claim bound: {}", serviceKey, e.toString());
            return null;
        }
    }

    /**
     * The services changed somewhere in the cluster (or through this node): attempts of services
     * paused since they were claimed are given back unsent, jobs parked while their service was full
     * are taken up again as far as its bound now allows, and a catch-up reads the due jobs of
     * services resumed (they waited in the database).
     */
    private void servicesChanged() {
        sender.giveBackPaused();
        capacity.reconsider();
        housekeep(0, "catch-up after a change of services", loader::catchUp); // a resumed service's jobs
    }

    private void reoffer(List<IndexEntry> entries) {
        entries.forEach(loader::offer);
    }

    private void afterWrite(List<AttemptResult> written) {
        for (AttemptResult r : written) {
            if (r.isSentOnly()) {
                continue;
            }
            if (!r.next().isFinal()) {
                loader.admit(new IndexEntry(r.jobId(), r.next().retryAt(), r.serviceKey(), r.shard()));
            }
            listener.ended(r);
        }
    }
}
