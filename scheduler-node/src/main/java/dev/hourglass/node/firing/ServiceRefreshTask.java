package dev.hourglass.node.firing;

import dev.hourglass.node.background.PeriodicTask;
import dev.hourglass.node.core.port.ServiceLookup;

/** Reads the services again, so changes made through other nodes reach this node's sends. */
final class ServiceRefreshTask implements PeriodicTask {
    private final ServiceLookup services;

    ServiceRefreshTask(ServiceLookup services) {
        this.services = services;
    }

    @Override
    public String name() {
        return "service refresh";
    }

    @Override
    public void run() {
        services.refresh();
    }
}
