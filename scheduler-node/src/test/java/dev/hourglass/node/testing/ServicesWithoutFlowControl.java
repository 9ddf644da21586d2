package dev.hourglass.node.testing;

import dev.hourglass.node.core.port.ServiceRepository;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.List;
import java.util.Optional;

/**
 * A service repository for unit tests whose services are never paused, named as dead letters nor
 * changed: its fakes implement the reads they need and take these.
 */
public interface ServicesWithoutFlowControl extends ServiceRepository {
    @Override
    default Optional<ServiceDefinition> setPaused(String app, String name, boolean paused, String by, long now) {
        throw new UnsupportedOperationException("not paused in this test");
    }

    @Override
    default List<String> deadLetterOf(String app, String name) {
        return List.of();
    }

    @Override
    default long version() {
        return 0;
    }
}
