package dev.hourglass.node.dispatch;

import dev.hourglass.node.catalog.ServiceDefinition;
import dev.hourglass.node.job.Job;

/** One attempt to deliver: the claimed job (its {@code attempts} is this attempt's number) and its service. */
public record Delivery(Job job, ServiceDefinition service, long firedAt) {
    public int attempt() {
        return job.attempts();
    }
}
