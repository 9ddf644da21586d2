package dev.hourglass.node.firing;

import dev.hourglass.node.catalog.AckMode;
import dev.hourglass.node.catalog.ServiceCatalog;
import dev.hourglass.node.catalog.ServiceDefinition;
import dev.hourglass.node.dispatch.Delivery;
import dev.hourglass.node.dispatch.DeliveryResult;
import dev.hourglass.node.dispatch.Dispatcher;
import dev.hourglass.node.job.AttemptOutcome;
import dev.hourglass.node.job.Job;
import dev.hourglass.node.shard.ShardOwnership;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes claimed attempts to their receivers: waits for each one's fire time (claim ahead, send on
 * time — never early: the timer counts monotonic time, so the wall clock is checked again), passes
 * it through its service's gate (at most the node's share of {@code maxInFlight} at once), fences
 * it, sends it, and hands its result to the writer.
 *
 * <p>The fence, right before the send, drops an attempt that is no longer this node's to send:
 *
 * <ul>
 *   <li>its shard moved to another node, or so little of its deadline is left that another node
 *       would time it out while the receiver works on it (under a second, or half its timeout): the attempt
 *       is given back unsent ({@link AttemptStore#unclaim}), so the owner claims it again at once;
 *   <li>it waited since its claim and the database no longer has it as this node's current attempt
 *       (canceled, or taken over by another node): it is dropped, nothing is written
 *       ({@link SendFence}).
 * </ul>
 *
 * An attempt sent straight from its claim (overdue, its gate open) skips the database check: the
 * claim itself was the check, microseconds earlier.
 *
 * <p>Thread-safe. Results and drops free the attempt's gate slot, claim slot and in-flight mark.
 */
final class AttemptSender {
    private static final Logger LOG = LoggerFactory.getLogger(AttemptSender.class);
    /** An attempt with less than this (or half its timeout) left of its deadline is not sent. */
    private static final long DEADLINE_MARGIN_MS = 1_000;

    private final ServiceCatalog catalog;
    private final Dispatcher dispatcher;
    private final ShardOwnership shards;
    private final Clock clock;
    private final FiringListener listener;
    private final IntUnaryOperator limitShare;
    private final Consumer<String> claimSlotFreed;
    private final Consumer<AttemptResult> results;
    private final DispatchGates gates = new DispatchGates(this::admitted);
    private final SendFence fence;
    private final Map<Long, Integer> inFlight = new ConcurrentHashMap<>();
    private final Map<Long, Waiting> waiting = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;

    /**
     * @param limitShare this node's share of a cluster-wide {@code maxInFlight}
     * @param claimSlotFreed told (with the service key) whenever an attempt ends or is dropped
     * @param results gets every ended attempt's result, to be written
     */
    AttemptSender(
            AttemptStore store,
            String nodeId,
            ServiceCatalog catalog,
            Dispatcher dispatcher,
            ShardOwnership shards,
            Clock clock,
            FiringListener listener,
            IntUnaryOperator limitShare,
            Consumer<String> claimSlotFreed,
            Consumer<AttemptResult> results,
            ScheduledExecutorService timer) {
        this.catalog = catalog;
        this.dispatcher = dispatcher;
        this.shards = shards;
        this.clock = clock;
        this.listener = listener;
        this.limitShare = limitShare;
        this.claimSlotFreed = claimSlotFreed;
        this.results = results;
        this.timer = timer;
        this.fence = new SendFence(store, nodeId, clock, new SendFence.Verdicts() {
            @Override
            public void current(PendingSend send) {
                dispatch(send);
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

    /** A claimed attempt: sent at {@code sendAt}, never earlier. */
    void accept(Job job, long sendAt) {
        PendingSend send = new PendingSend(job, sendAt);
        inFlight.put(job.id(), job.attempts());
        long wait = sendAt - clock.millis();
        if (wait <= 0) {
            toGate(send);
        } else {
            send.waited();
            waitFor(send, wait);
        }
    }

    /**
     * An attempt waiting for its fire time. Whoever removes it from {@link #waiting} owns it: the
     * timer (then it goes on to its gate), {@link #forget} or {@link #shardsLost} (then they release
     * it). Canceling the timer is only a courtesy: a timer task already running is not stopped by
     * it, and finds its entry gone.
     */
    private static final class Waiting {
        final PendingSend send;
        volatile ScheduledFuture<?> future;

        Waiting(PendingSend send) {
            this.send = send;
        }

        void cancelTimer() {
            ScheduledFuture<?> f = future;
            if (f != null) {
                f.cancel(false);
            }
        }
    }

    private void waitFor(PendingSend send, long wait) {
        Waiting w = new Waiting(send);
        waiting.put(send.job().id(), w); // before the timer can fire
        w.future = timer.schedule(() -> whenDue(w), wait, TimeUnit.MILLISECONDS);
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
     * A job canceled (or moved) through this node: if its attempt still waits for its fire time, it
     * is not sent. (One already past its timer is stopped by the fence, which finds it canceled.)
     */
    void forget(long jobId) {
        Waiting w = waiting.remove(jobId);
        if (w != null) {
            w.cancelTimer();
            release(w.send); // the job changed in the database already: nothing to give back
        }
    }

    /**
     * Shards moved away: their attempts still waiting for their fire time are given back now rather
     * than at that time, so that the new owner, reading the shards as it gains them, finds them
     * DELAYED (or, if it read first, at its re-read moments later). An attempt already past its
     * timer is given back by the fence instead, when it reaches its gate.
     */
    void shardsLost(Set<Integer> kept) {
        for (Waiting w : waiting.values()) {
            Job job = w.send.job();
            if (!kept.contains(job.shard()) && waiting.remove(job.id(), w)) {
                w.cancelTimer();
                LOG.debug("job {} attempt {}: shard moved, given back unsent", job.id(), job.attempts());
                fence.giveBack(w.send.attempt());
                release(w.send);
            }
        }
    }

    /** Whether this node is delivering (or about to deliver) this attempt. */
    boolean isInFlight(long jobId, int attempt) {
        Integer mine = inFlight.get(jobId);
        return mine != null && mine == attempt;
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
        try {
            send.service(catalog.find(job.app(), job.service()));
        } catch (RuntimeException e) {
            LOG.warn("job {} attempt {}: its service could not be read: {}", job.id(), job.attempts(), e.toString());
            end(send, AttemptEndings.notSent(job, "service lookup failed: " + e, clock.millis()));
            return;
        }
        int limit = send.service().map(ServiceDefinition::maxInFlight).orElse(1_000);
        gates.submit(send, Math.max(1, limitShare.applyAsInt(limit)));
    }

    /** Holds a gate slot now: fence, then send. */
    private void admitted(PendingSend send) {
        long now = clock.millis();
        Job job = send.job();
        long margin = Math.min(job.timeoutMs() / 2, DEADLINE_MARGIN_MS);
        if (!shards.owns(job.shard()) || now > send.deadline() - margin) {
            LOG.debug("job {} attempt {}: shard moved or deadline near, given back unsent", job.id(), job.attempts());
            fence.giveBack(send.attempt());
            drop(send);
        } else if (send.hasWaited()) {
            fence.check(send);
        } else {
            dispatch(send);
        }
    }

    /** Sends now; never throws (the gate slot is released when the attempt ends). */
    private void dispatch(PendingSend send) {
        Job job = send.job();
        Optional<ServiceDefinition> service = send.service();
        long firedAt = clock.millis();
        CompletionStage<DeliveryResult> stage;
        try {
            listener.fired(job, firedAt);
            stage = service.isPresent()
                    ? dispatcher.deliver(new Delivery(job, service.get(), firedAt))
                    : CompletableFuture.completedFuture(
                            DeliveryResult.error("service " + job.service() + " not found"));
        } catch (RuntimeException e) {
            stage = CompletableFuture.completedFuture(DeliveryResult.error(e.toString()));
        }
        stage.whenComplete((result, error) -> {
            DeliveryResult r = error != null ? DeliveryResult.error(error.toString()) : result;
            gates.release(job.serviceKey());
            if (r.outcome() == AttemptOutcome.SUCCESS
                    && service.isPresent()
                    && service.get().ackMode() == AckMode.CONSUMER) {
                // delivered: stays RUNNING until the consumer reports, or its timeout
                end(send, AttemptResult.sentOnly(job.id(), job.attempts(), firedAt, job.shard(), job.serviceKey()));
            } else {
                end(send, AttemptEndings.delivered(job, service, r, firedAt, clock.millis()));
            }
        });
    }

    private void end(PendingSend send, AttemptResult result) {
        release(send);
        results.accept(result);
    }

    /** Not sent after all: frees its slots; nothing is written here. */
    private void drop(PendingSend send) {
        gates.release(send.job().serviceKey());
        release(send);
    }

    private void release(PendingSend send) {
        inFlight.remove(send.job().id(), send.job().attempts());
        claimSlotFreed.accept(send.job().serviceKey());
    }
}
