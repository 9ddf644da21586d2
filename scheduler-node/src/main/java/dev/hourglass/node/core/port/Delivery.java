package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.function.BooleanSupplier;

/**
 * One attempt to deliver: the claimed job (its {@code attempts} is this attempt's number) and its
 * service.
 *
 * @param mayStillLeave asked again by a dispatcher that holds the attempt before it leaves the node
 *     (Kafka's queue to the producer, which can hold a record for seconds): false once this node may
 *     no longer send it — its shard moved, or its lease lapsed (a node frozen past its session, now
 *     thawing) — and another node may be sending a later attempt. Such an attempt must then not
 *     leave. The engine checked it right before {@code deliver}; a dispatcher that sends at once
 *     need not ask.
 */
public record Delivery(Job job, ServiceDefinition service, long firedAt, BooleanSupplier mayStillLeave) {
    /** A delivery that nothing revokes (tests of a dispatcher alone). */
    public Delivery(Job job, ServiceDefinition service, long firedAt) {
        this(job, service, firedAt, () -> true);
    }

    public int attempt() {
        return job.attempts();
    }
}
