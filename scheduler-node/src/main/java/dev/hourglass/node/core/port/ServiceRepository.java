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

    /**
     * Pauses the service (unless paused already: then it keeps its first pause) or resumes it
     * (unless not paused); returns the stored service, empty if there is none.
     */
    Optional<ServiceDefinition> setPaused(String app, String name, boolean paused, String by, long now);

    /** The services of {@code app} whose dead letter is {@code name}. */
    List<String> deadLetterOf(String app, String name);

    /**
     * A number that changes whenever a service is put, deleted, paused or resumed: cheaper to read
     * than the services themselves, so nodes read it often and the services only when it moved.
     */
    long version();
}
