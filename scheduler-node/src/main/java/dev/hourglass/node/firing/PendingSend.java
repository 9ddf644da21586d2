package dev.hourglass.node.firing;

import dev.hourglass.node.catalog.ServiceDefinition;
import dev.hourglass.node.job.Job;
import java.util.Optional;

/**
 * A claimed attempt on its way out: the claimed job (its {@code attempts} is this attempt's number,
 * its {@code dueAt} the attempt's deadline), when it is to be sent, and whether it has waited since
 * its claim — an attempt that waited (for its fire time, or at its service's gate) is checked
 * against the database before it is sent, because a cancel or another node may have changed it.
 */
final class PendingSend {
    private final Job job;
    private final long sendAt;
    private volatile boolean waited;
    private volatile Optional<ServiceDefinition> service = Optional.empty();

    PendingSend(Job job, long sendAt) {
        this.job = job;
        this.sendAt = sendAt;
    }

    Job job() {
        return job;
    }

    long sendAt() {
        return sendAt;
    }

    long deadline() {
        return job.dueAt();
    }

    void waited() {
        waited = true;
    }

    boolean hasWaited() {
        return waited;
    }

    Optional<ServiceDefinition> service() {
        return service;
    }

    void service(Optional<ServiceDefinition> service) {
        this.service = service;
    }

    AttemptStore.ClaimedAttempt attempt() {
        return new AttemptStore.ClaimedAttempt(job.id(), job.attempts());
    }
}
