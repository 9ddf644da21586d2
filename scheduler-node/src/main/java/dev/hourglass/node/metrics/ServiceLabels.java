package dev.hourglass.node.metrics;

import io.micrometer.core.instrument.Tags;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code app} and {@code service} labels of per-service series, for at most {@code max}
 * services per node: each series costs Prometheus memory on every scrape, and apps define services
 * at will. The first {@code max} services a node fires for (or finds overdue) get their own labels;
 * the others share {@code app="_other", service="_other"} (no app or service can be named so) until
 * the node restarts (docs/operations.md, "Metrics").
 */
public final class ServiceLabels {
    public static final String OTHER = "_other";
    private static final Tags OTHER_TAGS = Tags.of("app", OTHER, "service", OTHER);

    private final int max;
    private final Set<String> labelled = ConcurrentHashMap.newKeySet();

    public ServiceLabels(int max) {
        this.max = max;
    }

    /** The labels of the service {@code app/service} (a service key), taking a place if one is left. */
    public Tags of(String serviceKey) {
        if (labelled.contains(serviceKey)) {
            return tags(serviceKey);
        }
        synchronized (this) { // the cap is a count: taken one at a time
            if (labelled.size() >= max && !labelled.contains(serviceKey)) {
                return OTHER_TAGS;
            }
            labelled.add(serviceKey);
        }
        return tags(serviceKey);
    }

    /** The labels the service has already, or the shared ones: takes no place. */
    public Tags ifLabelled(String serviceKey) {
        return labelled.contains(serviceKey) ? tags(serviceKey) : OTHER_TAGS;
    }

    private static Tags tags(String serviceKey) {
        int slash = serviceKey.indexOf('/');
        return Tags.of("app", serviceKey.substring(0, slash), "service", serviceKey.substring(slash + 1));
    }
}
