package dev.hourglass.node.tenant;

import dev.hourglass.api.HourglassException;
import dev.hourglass.node.core.port.AppRepository;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.service.TargetGrants;
import dev.hourglass.node.core.service.TargetNames;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which Kafka topics and Dubbo groups each app may deliver to: tenant isolation of delivery
 * targets. An app reaches the names that are its own by {@link TargetNames} (no grant needed) and
 * those the admin grants it ({@link TargetGrants}); every other name, and Dubbo's default group,
 * is refused. A DUBBO service with a direct {@code url} and no group is governed by the node's
 * callback host allow-list instead: the url names one provider address that allow-list approved.
 *
 * <p>Checked twice. When a service is saved, against the database ({@link #requireTopic},
 * {@link #requireDubboGroup}: INVALID_ARGUMENT naming {@code topic} or {@code dubboGroup}). Before
 * each delivery, against a snapshot held in memory ({@link #topicRefusal},
 * {@link #dubboGroupRefusal}): so a grant the admin withdraws also stops the services saved under
 * it. The snapshot changes at once for grants changed through this node and is reloaded by
 * {@link #refresh()} (with the service catalog, every few seconds) for changes through others;
 * on a database error it keeps the last one. Thread-safe.
 */
public final class DeliveryTargets {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryTargets.class);

    private record Snapshot(Set<String> apps, Map<String, TargetGrants> grants) {}

    private final AppRepository repository;
    private volatile Snapshot snapshot;

    /** Loads the first snapshot: a database error here fails the node's start. */
    public DeliveryTargets(AppRepository repository) {
        this.repository = repository;
        this.snapshot = load();
    }

    private Snapshot load() {
        return new Snapshot(Set.copyOf(repository.listApps()), Map.copyOf(repository.allTargets()));
    }

    /**
     * Reloads the snapshot; on a database error keeps the last one. Synchronized with
     * {@link #replaceGrants}'s update, so a reload that read before a change cannot land after it.
     */
    public synchronized void refresh() {
        try {
            snapshot = load();
        } catch (RuntimeException e) {
            LOG.warn("delivery targets refresh failed; keeping the last known grants: {}", e.toString());
        }
    }

    /** The admin's grants to an app; NOT_FOUND when there is no such app. */
    public TargetGrants grants(String app) {
        requireApp(app);
        return repository.targets(app);
    }

    /** Replaces the admin's grants to an app (they apply at once on this node); NOT_FOUND when no such app. */
    public TargetGrants replaceGrants(String app, TargetGrants grants) {
        requireApp(app);
        repository.replaceTargets(app, grants);
        synchronized (this) {
            Snapshot s = snapshot;
            Map<String, TargetGrants> copy = new HashMap<>(s.grants());
            copy.put(app, grants);
            Set<String> apps = new HashSet<>(s.apps());
            apps.add(app);
            snapshot = new Snapshot(Set.copyOf(apps), Map.copyOf(copy));
        }
        return grants;
    }

    private void requireApp(String app) {
        if (!repository.exists(app)) {
            throw HourglassException.notFound("app " + app + " not found");
        }
    }

    /** For a service being saved: INVALID_ARGUMENT on {@code topic} when the app may not use it. */
    public void requireTopic(String app, String topic) {
        String refusal = topicRefusal(app, topic, repository.targets(app), Set.copyOf(repository.listApps()));
        if (refusal != null) {
            throw HourglassException.invalid("topic", refusal);
        }
    }

    /**
     * For a service being saved: INVALID_ARGUMENT on {@code dubboGroup} when the app may not call
     * that group.
     *
     * @param group null for none (Dubbo's default group)
     * @param directUrl whether the service names its provider's address
     */
    public void requireDubboGroup(String app, String group, boolean directUrl) {
        String refusal =
                dubboGroupRefusal(app, group, directUrl, repository.targets(app), Set.copyOf(repository.listApps()));
        if (refusal != null) {
            throw HourglassException.invalid("dubboGroup", refusal);
        }
    }

    /**
     * Before a delivery, from the snapshot: why the service may not send to its KAFKA topic or
     * DUBBO group, or null (an HTTP service's URL is checked against the callback allow-list by
     * its dispatcher).
     */
    public String refusal(ServiceDefinition service) {
        return switch (service.protocol()) {
            case KAFKA -> topicRefusal(service.app(), service.topic());
            case DUBBO -> dubboGroupRefusal(service.app(), service.dubboGroup(), service.url() != null);
            case HTTP, PULL -> null;
        };
    }

    /** Before a delivery, from the snapshot: why the app may not publish to the topic, or null. */
    public String topicRefusal(String app, String topic) {
        Snapshot s = snapshot;
        return topicRefusal(app, topic, s.grants().getOrDefault(app, TargetGrants.NONE), s.apps());
    }

    /** Before a delivery, from the snapshot: why the app may not call the group, or null. */
    public String dubboGroupRefusal(String app, String group, boolean directUrl) {
        Snapshot s = snapshot;
        return dubboGroupRefusal(app, group, directUrl, s.grants().getOrDefault(app, TargetGrants.NONE), s.apps());
    }

    private static String topicRefusal(String app, String topic, TargetGrants grants, Set<String> apps) {
        if (grants.grantsTopic(topic) || isOwn(app, topic, apps)) {
            return null;
        }
        return "topic " + topic + " is not allowed for app " + app + otherOwner(app, topic, apps)
                + ": an app publishes to the topics named after it (" + app + ", " + app + ".*, " + app
                + "-*) and to those the admin grants it (PUT /api/v1/apps/" + app + "/targets)";
    }

    private static String dubboGroupRefusal(
            String app, String group, boolean directUrl, TargetGrants grants, Set<String> apps) {
        if (group == null) {
            if (directUrl || grants.grantsGroup(null)) {
                return null;
            }
            return "a DUBBO service without dubboGroup calls Dubbo's default group, which every provider without"
                    + " a group shares: not allowed for app " + app + " unless the admin grants it"
                    + " (dubboDefaultGroup) or the service names its provider's url";
        }
        if (grants.grantsGroup(group) || isOwn(app, group, apps)) {
            return null;
        }
        return "dubboGroup " + group + " is not allowed for app " + app + otherOwner(app, group, apps)
                + ": an app calls the Dubbo groups named after it (" + app + ", " + app + ".*, " + app
                + "-*) and those the admin grants it (PUT /api/v1/apps/" + app + "/targets)";
    }

    /** The app itself always counts as known: it may have been created after the last snapshot. */
    private static boolean isOwn(String app, String name, Set<String> apps) {
        return app.equals(TargetNames.ownerOf(name, withApp(app, apps)));
    }

    private static String otherOwner(String app, String name, Set<String> apps) {
        String owner = TargetNames.ownerOf(name, withApp(app, apps));
        return owner == null || owner.equals(app) ? "" : " (it is named after app " + owner + ")";
    }

    private static Set<String> withApp(String app, Set<String> apps) {
        if (apps.contains(app)) {
            return apps;
        }
        Set<String> copy = new HashSet<>(apps);
        copy.add(app);
        return copy;
    }
}
