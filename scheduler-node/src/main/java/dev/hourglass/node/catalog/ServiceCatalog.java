package dev.hourglass.node.catalog;

import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.port.ServiceRepository;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services every firing needs, held in memory so the hot path never reads them from the
 * database. Changes made through this node apply at once; changes made through other nodes arrive
 * with the next {@link #refresh()} (the engine calls it twice a second; it reads one number unless
 * something changed). Thread-safe.
 */
public final class ServiceCatalog implements ServiceLookup {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceCatalog.class);

    private final ServiceRepository repository;
    private final ServiceRepository refreshFrom;
    private volatile Map<String, ServiceDefinition> byKey = Map.of();
    private volatile Set<String> pulled = Set.of(); // the PULL services of byKey
    private volatile Set<String> paused = Set.of(); // the paused services of byKey
    private final List<Consumer<Map<String, ServiceDefinition>>> listeners = new CopyOnWriteArrayList<>();
    /** A reload whatever the version says, now and then: a row changed by hand is seen too. */
    private static final int FULL_RELOAD_EVERY = 10; // 5 s: also how soon target grants changed elsewhere apply

    private volatile long seenVersion = Long.MIN_VALUE;
    private int callsSinceReload; // the refreshing thread's

    public ServiceCatalog(ServiceRepository repository) {
        this(repository, repository);
    }

    /**
     * @param refreshFrom what {@link #refresh()} reads: the engine calls it on its housekeeping
     *     thread, so the node passes a repository on the engine's own connections there (a refresh
     *     waiting for a busy API pool would hold up the loader and the sweeps behind it)
     */
    public ServiceCatalog(ServiceRepository repository, ServiceRepository refreshFrom) {
        this.repository = repository;
        this.refreshFrom = refreshFrom;
    }

    /**
     * Called with every known service (key {@code app/name}) after each refresh and each delete
     * through this node: adapters that hold per-service resources drop those of services gone.
     */
    public void onChange(Consumer<Map<String, ServiceDefinition>> listener) {
        listeners.add(listener);
    }

    private void changed() {
        Map<String, ServiceDefinition> now = byKey;
        for (Consumer<Map<String, ServiceDefinition>> l : listeners) {
            try {
                l.accept(now);
            } catch (RuntimeException e) {
                LOG.warn("service change listener failed: {}", e.toString());
            }
        }
    }

    @Override
    public Optional<ServiceDefinition> find(String app, String name) {
        ServiceDefinition cached = byKey.get(Job.serviceKey(app, name));
        if (cached != null) {
            return Optional.of(cached);
        }
        Optional<ServiceDefinition> stored = repository.find(app, name);
        stored.ifPresent(this::remember);
        return stored;
    }

    /** From memory by its key, without taking the key apart (asked for every send). */
    @Override
    public Optional<ServiceDefinition> findByKey(String serviceKey) {
        ServiceDefinition cached = byKey.get(serviceKey);
        return cached != null ? Optional.of(cached) : ServiceLookup.super.findByKey(serviceKey);
    }

    public ServiceDefinition put(ServiceDefinition service) {
        ServiceDefinition stored = repository.put(service);
        remember(stored);
        return stored;
    }

    /** Pauses or resumes the service; see {@link ServiceRepository#setPaused}. */
    public Optional<ServiceDefinition> setPaused(String app, String name, boolean paused, String by, long now) {
        Optional<ServiceDefinition> stored = repository.setPaused(app, name, paused, by, now);
        stored.ifPresent(this::remember);
        return stored;
    }

    /**
     * The service as stored now (not as remembered). Not remembered either: a read that a refresh
     * overtakes would put an older copy back over the refresh's (a pause forgotten until the next
     * full reload, its jobs sent meanwhile); memory changes through the refresh and this node's own
     * writes only.
     */
    @Override
    public Optional<ServiceDefinition> findStored(String app, String name) {
        return repository.find(app, name);
    }

    /** From memory only (asked under the pull consumers' lock): a service not known here has none. */
    @Override
    public boolean isRateLimited(String serviceKey) {
        ServiceDefinition cached = byKey.get(serviceKey);
        return cached != null && cached.flow().rateLimit() != null;
    }

    /** The services of {@code app} whose dead letter is {@code name}, as stored. */
    public List<String> deadLetterOf(String app, String name) {
        return repository.deadLetterOf(app, name);
    }

    public boolean deleteIfIdle(String app, String name) {
        boolean deleted = repository.deleteIfIdle(app, name);
        if (deleted) {
            Map<String, ServiceDefinition> copy = new ConcurrentHashMap<>(byKey);
            copy.remove(Job.serviceKey(app, name));
            setKnown(copy);
            changed();
        }
        return deleted;
    }

    private synchronized void remember(ServiceDefinition service) {
        Map<String, ServiceDefinition> copy = new ConcurrentHashMap<>(byKey);
        copy.put(service.key(), service);
        setKnown(copy);
    }

    /** Synchronized: the PULL keys and the services they come from are replaced together. */
    private synchronized void setKnown(Map<String, ServiceDefinition> services) {
        Set<String> pulls = new HashSet<>();
        Set<String> pauses = new HashSet<>();
        services.values().forEach(s -> {
            if (s.protocol() == Protocol.PULL) {
                pulls.add(s.key());
            }
            if (s.paused()) {
                pauses.add(s.key());
            }
        });
        pulled = Set.copyOf(pulls);
        paused = Set.copyOf(pauses);
        byKey = services;
    }

    @Override
    public Set<String> pulledServiceKeys() {
        return pulled;
    }

    @Override
    public Set<String> pausedServiceKeys() {
        return paused;
    }

    /**
     * Reloads every service when their version moved (a put, delete, pause or resume anywhere in the
     * cluster), and every {@value #FULL_RELOAD_EVERY}th call whatever it says; on a database error
     * keeps the last known set.
     */
    @Override
    public boolean refresh() {
        try {
            long version = refreshFrom.version(); // before the read: a change after it is read again next time
            if (version == seenVersion && ++callsSinceReload < FULL_RELOAD_EVERY) {
                return false;
            }
            Map<String, ServiceDefinition> fresh = new ConcurrentHashMap<>();
            refreshFrom.list(null).forEach(s -> fresh.put(s.key(), s));
            setKnown(fresh);
            seenVersion = version;
            callsSinceReload = 0;
            changed();
            return true;
        } catch (RuntimeException e) {
            LOG.warn("service catalog refresh failed; keeping {} known services: {}", byKey.size(), e.toString());
            return false;
        }
    }
}
