package dev.hourglass.node.firing;

import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A claimed attempt on its way out: the claimed job (its {@code attempts} is this attempt's number,
 * its {@code dueAt} the attempt's deadline), when it is to be sent, and whether it is still to be
 * sent. That last one is decided once, by whoever comes first: the sender as it sends ({@link
 * #startSending}), or a cancel through any node that asks to withhold it ({@link #withhold}) — the
 * cancel then commits knowing that the attempt never left.
 */
final class PendingSend {
    /** Where the attempt is on its way out; said in the warning about one that stays too long. */
    enum Stage {
        WAITING_FOR_FIRE_TIME,
        AT_GATE,
        AT_FENCE,
        SENDING
    }

    private enum Fate {
        PENDING,
        SENT,
        WITHHELD
    }

    private final Job job;
    private final long sendAt;
    private final java.util.concurrent.atomic.AtomicReference<Fate> fate =
            new java.util.concurrent.atomic.AtomicReference<>(Fate.PENDING);
    private volatile Optional<ServiceDefinition> service = Optional.empty();
    private volatile Stage stage = Stage.WAITING_FOR_FIRE_TIME;
    private volatile long stageSince;
    private volatile boolean warnedStuck;
    /** The attempt's deadline: its claim's, or a later one its renewal wrote (see the gate). */
    private volatile long deadline;
    /** Set when sent: completed by the dispatcher's answer, or by the sender giving up on it. */
    private volatile CompletableFuture<DeliveryResult> outcome;

    PendingSend(Job job, long sendAt) {
        this.job = job;
        this.sendAt = sendAt;
        this.deadline = job.dueAt();
    }

    Job job() {
        return job;
    }

    long sendAt() {
        return sendAt;
    }

    long deadline() {
        return deadline;
    }

    /** The database holds a later deadline for this attempt now. */
    void renewed(long newDeadline) {
        deadline = newDeadline;
    }

    /** True if the attempt may leave now (and from now on it cannot be withheld). */
    boolean startSending() {
        return fate.compareAndSet(Fate.PENDING, Fate.SENT);
    }

    /** True if the attempt will never leave (withheld now or before); false if it has been sent. */
    boolean withhold() {
        return fate.compareAndSet(Fate.PENDING, Fate.WITHHELD) || fate.get() == Fate.WITHHELD;
    }

    boolean isWithheld() {
        return fate.get() == Fate.WITHHELD;
    }

    Optional<ServiceDefinition> service() {
        return service;
    }

    void service(Optional<ServiceDefinition> service) {
        this.service = service;
    }

    Stage stage() {
        return stage;
    }

    long stageSince() {
        return stageSince;
    }

    void enter(Stage stage, long now) {
        this.stageSince = now;
        this.stage = stage;
    }

    /** Sent now: {@code outcome} ends the attempt, whoever completes it first. */
    void sending(CompletableFuture<DeliveryResult> outcome, long now) {
        this.outcome = outcome;
        enter(Stage.SENDING, now);
    }

    CompletableFuture<DeliveryResult> outcome() {
        return outcome;
    }

    /** True the first time only: one warning per stuck attempt. */
    boolean warnStuckOnce() {
        if (warnedStuck) {
            return false;
        }
        warnedStuck = true;
        return true;
    }

    AttemptStore.ClaimedAttempt attempt() {
        return new AttemptStore.ClaimedAttempt(job.id(), job.attempts());
    }
}
