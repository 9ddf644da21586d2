package dev.hourglass.node.firing;

import dev.hourglass.node.background.PeriodicTask;
import dev.hourglass.node.core.port.ServiceLookup;

/**
 * Reads the services again when they changed anywhere in the cluster (one small read otherwise),
 * so changes made through other nodes reach this node's sends; then tells the engine, which acts
 * on pauses, resumes and new limits at once.
 */
final class ServiceRefreshTask implements PeriodicTask {
    /** Twice a second: a pause through any node stops every node's sends within a second. */
    static final long INTERVAL_MS = 500;

    private final ServiceLookup services;
    private final Runnable changed;

    ServiceRefreshTask(ServiceLookup services, Runnable changed) {
        this.services = services;
        this.changed = changed;
    }

    @Override
    public String name() {
        return "service refresh";
    }

    @Override
    public void run() {
        if (services.refresh()) {
            changed.run();
        }
    }
}
