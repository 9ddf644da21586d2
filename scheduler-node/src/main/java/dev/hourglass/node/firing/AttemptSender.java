package dev.hourglass.node.firing;

import dev.hourglass.node.background.TaskScheduler;
import dev.hourglass.node.core.job.AttemptEndings;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.Delivery;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.port.Dispatcher;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.RateShare;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.shard.ShardOwnership;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes claimed attempts to their receivers: waits for each one's fire time (claim ahead, send on
 * time — never early: the timer counts monotonic time, so the wall clock is checked again), passes
 * it through its service's gate (at most the node's share of {@code maxInFlight} at once), and
 * sends it from memory, with no database round trip between the fire time and the send; then hands
 * its result to the writer.
 *
 * <p>The claim was the database check. What may change an attempt after it is answered here, in
 * memory (docs/design.md, "No database read at the fire time"):
 *
 * <ul>
 *   <li>a cancel through any node asks this node to withhold the attempt ({@link #withhold}) while
 *       it holds the job's row lock, and commits only with the answer: the attempt's fate is decided
 *       once, by the send or by the withholding, whichever comes first ({@link PendingSend}). An
 *       attempt whose claim has committed but which is not yet in memory here is withheld by a
 *       tombstone that its arrival finds;
 *   <li>its shard moved to another node, or this node lost touch with the cluster (its shard lease,
 *       {@link ShardOwnership#mayFire}, checked right before the send): the attempt is given back
 *       unsent ({@link AttemptStore#unclaim}), so the owner claims it again at once. No other node
 *       takes a live node's claimed attempt before its deadline; a node whose session ended can
 *       no longer hold its lease;
 *   <li>so little of its deadline is left that another node would time it out while the receiver
 *       works on it (under a second, or half its timeout) — it waited at a full gate, or its claim
 *       was slow: it gets a fresh deadline first ({@link AttemptStore#renewDeadlines}, on the
 *       {@link SendFence}'s thread) and keeps its place; given back instead, it would be claimed
 *       again at the end of the line, for as long as the service stays full.
 * </ul>
 *
 * <p>Thread-safe. Results and drops free the attempt's gate slot, claim slot and in-flight mark.
 */
final class AttemptSender {
    private static final Logger LOG = LoggerFactory.getLogger(AttemptSender.class);
    /** An attempt with less than this (or half its timeout) left of its deadline is not sent. */
    private static final long DEADLINE_MARGIN_MS = 1_000;
    /** How long past its timeout a send without an answer from its dispatcher is given up. */
    static final long GIVE_UP_GRACE_MS = 5_000;
    /** How long past its deadline an attempt not yet sent is warned about (once). */
    static final long STUCK_WARNING_MS = 60_000;

    private final ServiceLookup catalog;
    private final Dispatcher dispatcher;
    private final ShardOwnership shards;
    private final Clock clock;
    private final FiringListener listener;
    private final IntUnaryOperator limitShare;
    private final Consumer<String> claimSlotFreed;
    private final Consumer<AttemptResult> results;
    private final Consumer<Job> givenBack;
    private final DispatchGates gates;
    private final SendFence fence;
    private final Map<Long, PendingSend> inFlight = new ConcurrentHashMap<>();
    private final Map<Long, Waiting> waiting = new ConcurrentHashMap<>();
    /**
     * Jobs whose claim is under way or whose claimed attempt is not yet in {@link #inFlight}, with
     * how many claim rounds hold them (a job may be in two rounds at once, the second one failing).
     */
    private final Map<Long, Integer> claiming = new ConcurrentHashMap<>();
    /** Attempts withheld before they reached {@link #inFlight}: their arrival finds these. */
    private final Map<Long, Tombstone> tombstones = new ConcurrentHashMap<>();
    /** Attempts withheld lately, so that a cancel asking again (a retry) hears the same answer. */
    private final Map<Long, Mark> withheldLately = new ConcurrentHashMap<>();
    /**
     * Attempts sent, until a minute past their deadline: one sent and already released, its result
     * not yet written (or its consumer's report awaited), is under way, whatever else is in memory.
     */
    private final Map<Long, Mark> sentLately = new ConcurrentHashMap<>();

    private final TaskScheduler timer;

    /**
     * @param limitShare this node's share of a cluster-wide {@code maxInFlight}
     * @param claimSlotFreed told (with the service key) whenever an attempt ends or is dropped
     * @param results gets every ended attempt's result, to be written
     * @param givenBack gets each job whose attempt was given back unsent, once that is written: one
     *     of a shard still owned is due again and must go back into memory (it is behind the
     *     loader's cursor, and the catch-up sweep leaves out a service that is full)
     */
    AttemptSender(
            AttemptStore store,
            String nodeId,
            ServiceLookup catalog,
            Dispatcher dispatcher,
            ShardOwnership shards,
            Clock clock,
            FiringListener listener,
            IntUnaryOperator limitShare,
            Consumer<String> claimSlotFreed,
            Consumer<AttemptResult> results,
            Consumer<Job> givenBack,
            TaskScheduler timer,
            TaskScheduler fenceScheduler) {
        this.catalog = catalog;
        this.dispatcher = dispatcher;
        this.shards = shards;
        this.clock = clock;
        this.listener = listener;
        this.limitShare = limitShare;
        this.claimSlotFreed = claimSlotFreed;
        this.results = results;
        this.givenBack = givenBack;
        this.timer = timer;
        this.gates = new DispatchGates(this::admitted, timer);
        this.fence = new SendFence(store, nodeId, clock, fenceScheduler, new SendFence.Verdicts() {
            @Override
            public void current(PendingSend send) {
                // checked again after the database round trip, which a rebalance (or a pause) can
                // come during
                if (maySendNow(send, clock.millis()) && !pausedNow(send.job())) {
                    dispatch(send);
                } else { // lost the shard or its lease, its deadline came near, or paused, during the check
                    fence.giveBack(send.job());
                    drop(send);
                }
            }

            @Override
            public void givenBack(List<Job> jobs) {
                jobs.forEach(givenBack);
            }

            @Override
            public void notRenewed(PendingSend send) {
                fence.giveBack(send.job());
                drop(send);
            }

            @Override
            public void superseded(PendingSend send) {
                LOG.debug(
                        "job {} attempt {}: no longer ours, not sent",
                        send.job().id(),
                        send.job().attempts());
                drop(send);
            }
        });
    }

    SendFence fence() {
        return fence;
    }

    /**
     * An attempt withheld before it reached memory, and when (kept a minute at most). Decided once:
     * honored by the attempt's arrival, or revoked by the withholding that found the attempt in
     * memory after all (or found nothing).
     */
    private static final class Tombstone {
        final int attempt;
        final long at;
        private final java.util.concurrent.atomic.AtomicInteger state = new java.util.concurrent.atomic.AtomicInteger();

        Tombstone(int attempt, long at) {
            this.attempt = attempt;
            this.at = at;
        }

        boolean honor() {
            return state.compareAndSet(0, 1);
        }

        /** False if it was honored first. */
        boolean revoke() {
            return state.compareAndSet(0, 2) || state.get() == 2;
        }
    }

    /** An attempt number, and until when the mark is kept. */
    private record Mark(int attempt, long until) {}

    /** How long a tombstone or a withheld mark is kept: far longer than a claim takes to reach memory. */
    private static final long TOMBSTONE_MS = 60_000;

    /**
     * These jobs are about to be claimed: until {@link #claimsTaken}, a request to withhold one of
     * them that finds no attempt in memory leaves a tombstone instead of answering that it does
     * not know the attempt.
     */
    void claiming(List<Long> jobIds) {
        jobIds.forEach(id -> claiming.merge(id, 1, Integer::sum));
    }

    /**
     * Whether a claim of this node has the job in hand: a re-read must not offer it again, or
     * the next claim would wait on the first one's row locks (see {@link WindowLoader#catchUp}).
     */
    boolean isBeingClaimed(long jobId) {
        return claiming.containsKey(jobId);
    }

    /** Their claims committed and every claimed attempt was {@link #accept}ed (or they failed). */
    void claimsTaken(List<Long> jobIds) {
        jobIds.forEach(id -> claiming.computeIfPresent(id, (k, rounds) -> rounds == 1 ? null : rounds - 1));
    }

    /** A claimed attempt: sent at {@code sendAt}, never earlier (unless withheld meanwhile). */
    void accept(Job job, long sendAt) {
        PendingSend send = new PendingSend(job, sendAt);
        long now = clock.millis();
        send.enter(PendingSend.Stage.WAITING_FOR_FIRE_TIME, now);
        inFlight.put(job.id(), send); // before the tombstone is looked for: see withhold
        Tombstone withheld = tombstones.remove(job.id());
        if (withheld != null && withheld.attempt == job.attempts() && withheld.honor()) {
            LOG.debug("job {} attempt {}: withheld before it was taken from its claim", job.id(), job.attempts());
            send.withhold();
            fence.giveBack(job); // see withhold: undone here unless the cancel committed
            release(send);
            return;
        }
        withheldLately.remove(job.id()); // a new claim: what was withheld before is not this attempt
        long wait = sendAt - now;
        if (wait <= 0) {
            toGate(send);
        } else {
            waitFor(send, wait);
        }
    }

    /**
     * Keeps attempt {@code attempt} of the job from leaving, if it has not left: asked by a cancel
     * (through this node or another) that holds the job's row lock and commits with the answer.
     * Never waits; never touches the database on the caller's thread. An attempt withheld is also
     * given back (a conditional {@link AttemptStore#unclaim}, on the fence's thread): it waits for
     * the cancel's lock and changes nothing when the cancel committed (the cancel undid the claim
     * itself), but when the cancel rolled back (its asker stopped waiting, its database failed) the
     * job is DELAYED again at once instead of RUNNING unsent until its deadline.
     *
     * <p>Race with {@link #accept}: each writes its own mark first ({@code inFlight}, the
     * tombstone) and then looks for the other's, so at least one of them sees the other; the
     * tombstone is then honored or revoked once.
     */
    AttemptHolders.Answer withhold(long jobId, int attempt) {
        long now = clock.millis();
        Mark sent = sentLately.get(jobId);
        if (sent != null && sent.attempt() == attempt) {
            return AttemptHolders.Answer.UNDER_WAY;
        }
        Tombstone tombstone = new Tombstone(attempt, now);
        tombstones.put(jobId, tombstone);
        PendingSend send = held(jobId, attempt);
        if (send == null && claiming.containsKey(jobId)) {
            return withheld(jobId, attempt, now); // its accept honors the tombstone
        }
        if (send == null) {
            send = held(jobId, attempt); // accepted between the two looks
        }
        tombstones.remove(jobId, tombstone);
        if (!tombstone.revoke()) {
            return withheld(jobId, attempt, now); // its accept honored the tombstone meanwhile
        }
        if (send == null) {
            Mark earlier = withheldLately.get(jobId);
            return earlier != null && earlier.attempt() == attempt
                    ? AttemptHolders.Answer.WITHHELD // asked again: it never left
                    : AttemptHolders.Answer.UNKNOWN; // an earlier life of this node claimed it, or it ended
        }
        if (!send.withhold()) {
            return AttemptHolders.Answer.UNDER_WAY;
        }
        // frees its slots now if it waits for its fire time or at its gate; otherwise the stage it
        // is in drops it (the gate, the send)
        Waiting w = waiting.get(jobId);
        if (w != null && w.send == send && waiting.remove(jobId, w)) {
            w.cancelTimer();
            release(send);
        } else {
            PendingSend withheld = send;
            gates.removeWaiting(queued -> queued == withheld).forEach(this::release);
        }
        fence.giveBack(send.job());
        return withheld(jobId, attempt, now);
    }

    private AttemptHolders.Answer withheld(long jobId, int attempt, long now) {
        withheldLately.put(jobId, new Mark(attempt, now + TOMBSTONE_MS));
        return AttemptHolders.Answer.WITHHELD;
    }

    private PendingSend held(long jobId, int attempt) {
        PendingSend send = inFlight.get(jobId);
        return send != null && send.job().attempts() == attempt ? send : null;
    }

    /**
     * An attempt waiting for its fire time. Whoever removes it from {@link #waiting} owns it: the
     * timer (then it goes on to its gate), {@link #forget} or {@link #shardsLost} (then they release
     * it). Canceling the timer is only a courtesy: a timer task already running is not stopped by
     * it, and finds its entry gone.
     */
    private static final class Waiting {
        final PendingSend send;
        volatile TaskScheduler.Scheduled timerTask;

        Waiting(PendingSend send) {
            this.send = send;
        }

        void cancelTimer() {
            TaskScheduler.Scheduled t = timerTask;
            if (t != null) {
                t.cancel();
            }
        }
    }

    private void waitFor(PendingSend send, long wait) {
        Waiting w = new Waiting(send);
        waiting.put(send.job().id(), w); // before the timer can fire
        w.timerTask = timer.after(wait, () -> {
            try {
                whenDue(w);
            } catch (RuntimeException | Error e) { // said with the job: the scheduler's log would not
                try (AttemptLogContext mdc = AttemptLogContext.of(send.job())) {
                    LOG.error(
                            "job {} attempt {}: sending at its fire time failed",
                            send.job().id(),
                            send.job().attempts(),
                            e);
                }
            }
        });
    }

    private void whenDue(Waiting w) {
        if (!waiting.remove(w.send.job().id(), w)) {
            return; // forgotten or given back meanwhile, and released by whoever did it
        }
        PendingSend send = w.send;
        long early = send.sendAt() - clock.millis();
        if (early > 0) { // the timer counts monotonic time, the clock is wall time: never send early
            waitFor(send, early);
            return;
        }
        toGate(send);
    }

    /**
     * Shards moved away: their attempts still waiting for their fire time are given back now rather
     * than at that time, so that the new owner, reading the shards as it gains them, finds them
     * DELAYED (or, if it read first, at its re-read moments later). An attempt already past its
     * timer is given back when it reaches its gate (the lease and shard check before the send).
     */
    void shardsLost(Set<Integer> kept) {
        for (Waiting w : waiting.values()) {
            Job job = w.send.job();
            if (!kept.contains(job.shard()) && waiting.remove(job.id(), w)) {
                w.cancelTimer();
                if (!w.send.isWithheld()) { // a withheld one's job changed: nothing to give back
                    LOG.debug("job {} attempt {}: shard moved, given back unsent", job.id(), job.attempts());
                    fence.giveBack(w.send.job());
                }
                release(w.send);
            }
        }
        // those queued at a full gate too: behind deliveries to a slow receiver they would wait
        // until their deadline, and the new owner would then end them as TIMEOUTs never sent
        for (PendingSend queued :
                gates.removeWaiting(s -> !kept.contains(s.job().shard()))) {
            LOG.debug(
                    "job {} attempt {}: shard moved while at its gate, given back unsent",
                    queued.job().id(),
                    queued.job().attempts());
            if (!queued.isWithheld()) {
                fence.giveBack(queued.job());
            }
            release(queued); // it held no gate slot
        }
    }

    /** Whether this node is delivering (or about to deliver) this attempt. */
    boolean isInFlight(long jobId, int attempt) {
        PendingSend mine = inFlight.get(jobId);
        return mine != null && mine.job().attempts() == attempt;
    }

    int inFlight() {
        return inFlight.size();
    }

    java.util.Map<String, Integer> inFlightByService() {
        return gates.running();
    }

    /**
     * Never throws: an attempt whose service cannot be read ends as an ERROR (retried) instead of
     * holding its claim slot and in-flight mark for ever.
     */
    private void toGate(PendingSend send) {
        Job job = send.job();
        if (send.isWithheld()) { // withheld after its timer took it: nobody else releases it
            release(send);
            return;
        }
        send.enter(PendingSend.Stage.AT_GATE, clock.millis());
        try {
            send.service(catalog.find(job.app(), job.service()));
        } catch (RuntimeException e) {
            try (AttemptLogContext mdc = AttemptLogContext.of(job)) {
                LOG.warn(
                        "job {} attempt {}: its service could not be read: {}", job.id(), job.attempts(), e.toString());
            }
            end(send, AttemptEndings.notSent(job, "service lookup failed: " + e, clock.millis()));
            return;
        }
        if (send.service().map(s -> s.protocol() == Protocol.PULL).orElse(false)) {
            // a job of a PULL service this node did not know of when it read it: its consumers'
            LOG.debug("job {} attempt {}: its service is PULL: given back unsent", job.id(), job.attempts());
            fence.giveBack(job);
            release(send); // it holds no gate slot
            return;
        }
        if (send.service().map(ServiceDefinition::paused).orElse(false)) {
            LOG.debug("job {} attempt {}: its service is paused: given back unsent", job.id(), job.attempts());
            fence.giveBack(job);
            release(send); // it holds no gate slot
            return;
        }
        int limit = send.service().map(ServiceDefinition::maxInFlight).orElse(ServiceDefinition.DEFAULT_MAX_IN_FLIGHT);
        RateShare rate = send.service()
                .map(sv -> RateShare.of(sv.flow().rateLimit(), limitShare))
                .orElse(null);
        gates.submit(send, Math.max(1, limitShare.applyAsInt(limit)), rate);
    }

    /**
     * Services were paused (or anything changed): attempts of paused services queued at their
     * gates go back unsent, without using an attempt — they may wait there long behind a slow
     * receiver. Those still waiting for their fire time are given back when it comes ({@link
     * #toGate}); one already leaving is under way and finishes.
     */
    void giveBackPaused() {
        for (PendingSend queued : gates.removeWaiting(s -> pausedNow(s.job()))) {
            LOG.debug(
                    "job {} attempt {}: its service was paused while it waited at its gate: given back unsent",
                    queued.job().id(),
                    queued.job().attempts());
            if (!queued.isWithheld()) {
                fence.giveBack(queued.job());
            }
            release(queued); // it held no gate slot
        }
    }

    /** Whether the job's service is paused now, as this node knows it (memory; false if unreadable). */
    private boolean pausedNow(Job job) {
        try {
            return catalog.isPaused(job.serviceKey());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Whether the attempt may leave now: its shard is this node's, with the lease held, and enough of
     * its deadline is left that no other node will time it out while its receiver works on it.
     */
    private boolean maySendNow(PendingSend send, long now) {
        Job job = send.job();
        long margin = Math.min(job.timeoutMs() / 2, DEADLINE_MARGIN_MS);
        return shards.mayFire(job.shard()) && now <= send.deadline() - margin;
    }

    /**
     * Holds a gate slot now: send, from memory. One that waited at the gate until little of its
     * deadline is left gets a fresh one first: given back instead, it would be claimed again at
     * the end of the line, and behind a receiver near its timeout it could go round like that for
     * as long as the service stays full while later jobs are sent.
     */
    private void admitted(PendingSend send) {
        long now = clock.millis();
        Job job = send.job();
        if (send.isWithheld()) {
            drop(send);
        } else if (pausedNow(job)) { // paused while it waited at its gate
            fence.giveBack(job);
            drop(send);
        } else if (shards.mayFire(job.shard()) && !maySendNow(send, now)) { // also one whose claim was slow
            send.enter(PendingSend.Stage.AT_FENCE, now);
            fence.renew(send);
        } else if (!maySendNow(send, now)) {
            LOG.debug(
                    "job {} attempt {}: shard moved, its lease lapsed or deadline near: given back unsent",
                    job.id(),
                    job.attempts());
            fence.giveBack(send.job());
            drop(send);
        } else {
            dispatch(send);
        }
    }

    /** Sends now, unless it was withheld; never throws (the gate slot is released when the attempt ends). */
    private void dispatch(PendingSend send) {
        Job job = send.job();
        if (!send.startSending()) {
            LOG.debug("job {} attempt {}: withheld, not sent", job.id(), job.attempts());
            drop(send);
            return;
        }
        sentLately.put(job.id(), new Mark(job.attempts(), send.deadline() + TOMBSTONE_MS));
        Optional<ServiceDefinition> service = send.service();
        long firedAt = clock.millis();
        CompletableFuture<DeliveryResult> outcome = new CompletableFuture<>();
        send.sending(outcome, firedAt);
        outcome.whenComplete((result, error) -> {
            try {
                ended(send, service, firedAt, error != null ? DeliveryResult.error(error.toString()) : result);
            } catch (RuntimeException | Error e) { // a future would keep it to itself
                try (AttemptLogContext mdc = AttemptLogContext.of(job)) {
                    LOG.error("job {} attempt {}: ending the attempt failed", job.id(), job.attempts(), e);
                }
            }
        });
        CompletionStage<DeliveryResult> stage;
        try {
            listener.fired(job, firedAt);
            stage = service.isPresent()
                    ? dispatcher.deliver(new Delivery(job, service.get(), firedAt, () -> shards.mayFire(job.shard())))
                    : CompletableFuture.completedFuture(
                            DeliveryResult.error("service " + job.service() + " not found"));
        } catch (RuntimeException e) {
            stage = CompletableFuture.completedFuture(DeliveryResult.error(e.toString()));
        }
        stage.whenComplete(
                (result, error) -> outcome.complete(error != null ? DeliveryResult.error(error.toString()) : result));
    }

    /** The dispatcher answered, or the sender gave up waiting for it: frees the slot, ends the attempt. */
    private void ended(PendingSend send, Optional<ServiceDefinition> service, long firedAt, DeliveryResult r) {
        Job job = send.job();
        AttemptResult result = r.outcome() == AttemptOutcome.SUCCESS
                        && service.isPresent()
                        && service.get().ackMode() == AckMode.CONSUMER
                // delivered: stays RUNNING until the consumer reports, or its timeout
                ? AttemptResult.sentOnly(job.id(), job.attempts(), firedAt, job.shard(), job.serviceKey())
                : AttemptEndings.delivered(job, service, r, firedAt, clock.millis());
        try {
            gates.release(job.serviceKey()); // may admit and send the next attempt on this thread
        } finally {
            end(send, result);
        }
    }

    /**
     * Run once a second. Every dispatcher bounds its own wait by the job's timeout; should one not
     * answer anyway (a defect of ours or of a client library), the attempt would stay in flight
     * for ever — and the timeout sweep leaves an attempt in flight here to its sender — so its job
     * would never fire again. Such a send is ended as a TIMEOUT {@value #GIVE_UP_GRACE_MS} ms after
     * its timeout, with a warning; a late answer changes nothing then. An attempt still not sent
     * {@value #STUCK_WARNING_MS} ms after its deadline is only warned about: each stage before the
     * send ends by itself (the timer, the gate behind sends that end, the fence's bounded writes).
     */
    void giveUpOnSilentSends() {
        long now = clock.millis();
        tombstones.values().removeIf(t -> now - t.at > TOMBSTONE_MS);
        withheldLately.values().removeIf(m -> m.until() < now);
        sentLately.values().removeIf(m -> m.until() < now);
        for (PendingSend send : inFlight.values()) {
            Job job = send.job();
            if (send.stage() == PendingSend.Stage.SENDING) {
                long silentFor = now - send.stageSince();
                if (silentFor >= job.timeoutMs() + GIVE_UP_GRACE_MS
                        && send.outcome()
                                .complete(new DeliveryResult(
                                        AttemptOutcome.TIMEOUT,
                                        null,
                                        "no answer from the "
                                                + send.service()
                                                        .map(s -> s.protocol().name())
                                                        .orElse("")
                                                + " dispatcher " + silentFor + " ms after the send: given up"))) {
                    try (AttemptLogContext mdc = AttemptLogContext.of(job)) {
                        LOG.warn(
                                "job {} attempt {}: its dispatcher gave no result {} ms after the send (timeout {} ms);"
                                        + " ended as a TIMEOUT",
                                job.id(),
                                job.attempts(),
                                silentFor,
                                job.timeoutMs());
                    }
                }
            } else if (now > send.deadline() + STUCK_WARNING_MS && send.warnStuckOnce()) {
                try (AttemptLogContext mdc = AttemptLogContext.of(job)) {
                    LOG.warn(
                            "job {} attempt {}: not sent {} ms after its deadline, {} for {} ms",
                            job.id(),
                            job.attempts(),
                            now - send.deadline(),
                            send.stage(),
                            now - send.stageSince());
                }
            }
        }
    }

    /**
     * A graceful stop's grace is over: each send still without an answer ends now as a TIMEOUT with
     * {@code why}, so its result is written before the node leaves (a late answer changes nothing).
     *
     * @return how many were ended
     */
    int abandonSends(String why) {
        int ended = 0;
        for (PendingSend send : inFlight.values()) {
            if (send.stage() == PendingSend.Stage.SENDING
                    && send.outcome().complete(new DeliveryResult(AttemptOutcome.TIMEOUT, null, why))) {
                ended++;
            }
        }
        return ended;
    }

    private void end(PendingSend send, AttemptResult result) {
        // queued before the in-flight mark goes: a timeout sweep that finds the attempt no longer in
        // flight queues its TIMEOUT behind this result, and the writer applies the first result of
        // an attempt only
        try {
            results.accept(result);
        } finally {
            release(send);
        }
    }

    /** Not sent after all: frees its slots; nothing is written here. */
    private void drop(PendingSend send) {
        gates.release(send.job().serviceKey());
        release(send);
    }

    private void release(PendingSend send) {
        inFlight.remove(send.job().id(), send); // not a later claim of the same job
        claimSlotFreed.accept(send.job().serviceKey());
    }
}
