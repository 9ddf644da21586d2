package dev.hourglass.node.firing;

import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.testing.ServicesWithoutFlowControl;
import java.util.List;
import java.util.Optional;

/** A service repository holding one service, which every lookup finds. */
record FixedServices(ServiceDefinition service) implements ServicesWithoutFlowControl {
    @Override
    public ServiceDefinition put(ServiceDefinition s) {
        return s;
    }

    @Override
    public Optional<ServiceDefinition> find(String app, String name) {
        return Optional.of(service);
    }

    @Override
    public List<ServiceDefinition> list(String app) {
        return List.of(service);
    }

    @Override
    public boolean deleteIfIdle(String app, String name) {
        return false;
    }
}
