package dev.hourglass.node.core.port;

import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.List;
import java.util.Optional;

/** Storage port for services. */
public interface ServiceRepository {
    /** Creates or replaces; returns the stored definition. */
    ServiceDefinition put(ServiceDefinition service);

    Optional<ServiceDefinition> find(String app, String name);

    /** One app's services, or every app's with {@code app == null}. */
    List<ServiceDefinition> list(String app);

    /**
     * Deletes unless the service has live jobs.
     *
     * @return false when it has live jobs (and so was kept)
     */
    boolean deleteIfIdle(String app, String name);
}
