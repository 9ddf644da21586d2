package dev.hourglass.node.core.port;

import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.Optional;
import java.util.Set;

/**
 * The services as the firing path reads them: from memory, so a send never waits for the
 * database (a service not seen yet is read once, then remembered). Changes made elsewhere in the
 * cluster arrive with the next {@link #refresh()}. Thread-safe.
 */
public interface ServiceLookup {
    Optional<ServiceDefinition> find(String app, String name);

    /** {@link #find} by the service's key, {@code app/name}. */
    default Optional<ServiceDefinition> findByKey(String serviceKey) {
        int slash = serviceKey.indexOf('/');
        return find(serviceKey.substring(0, slash), serviceKey.substring(slash + 1));
    }

    /**
     * The service as stored now, read from the database (not remembered): for the management calls
     * that must not answer from a memory up to half a second behind a change made through another
     * node (a pause). Not for the firing path.
     */
    default Optional<ServiceDefinition> findStored(String app, String name) {
        return find(app, name);
    }

    /**
     * Keys of the PULL services known here: their jobs are their consumers' to reserve, never the
     * engine's to load or send.
     */
    Set<String> pulledServiceKeys();

    /** Keys of the services paused as this node knows them (memory). */
    Set<String> pausedServiceKeys();

    /** Whether the service is PULL (one not known here yet is read once). */
    default boolean isPulled(String serviceKey) {
        return findByKey(serviceKey).map(s -> s.protocol() == Protocol.PULL).orElse(false);
    }

    /**
     * Reads the services again if they changed anywhere in the cluster; on a failure keeps the last
     * known set. Returns whether it read them.
     */
    boolean refresh();

    /** Whether the service is paused (one not known here yet is read once; an unknown one is not). */
    default boolean isPaused(String serviceKey) {
        return findByKey(serviceKey).map(ServiceDefinition::paused).orElse(false);
    }

    /** Whether the service has a rate limit, as this node knows it (one not known here has none). */
    default boolean isRateLimited(String serviceKey) {
        return findByKey(serviceKey).map(s -> s.flow().rateLimit() != null).orElse(false);
    }
}
