package dev.hourglass.node.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code hourglass_oldest_overdue_seconds{app,service}}: per service with a waiting job (DELAYED:
 * neither claimed nor reserved), how long the oldest of them is past its due time, 0 while none is
 * due; a service with no waiting job has no series. Read from the store by every node, the same on
 * each (aggregate with max). What grows here and not in the lateness histogram is work that is not
 * being started at all: a paused service, a receiver at its maxInFlight, a cluster short of nodes.
 */
public final class OverdueMetrics {
    private final MultiGauge oldest;
    private final ServiceLabels labels;

    public OverdueMetrics(MeterRegistry registry, ServiceLabels labels) {
        this.labels = labels;
        this.oldest = MultiGauge.builder("hourglass.oldest.overdue")
                .baseUnit("seconds")
                .description("how long the oldest waiting job of a service is past its due time (cluster-wide)")
                .register(registry);
    }

    /** @param oldestDueAt per service key, the due time of its oldest waiting job */
    public void refresh(Map<String, Long> oldestDueAt, long now) {
        Map<Tags, Double> ages = new HashMap<>();
        oldestDueAt.forEach(
                (serviceKey, dueAt) -> ages.merge(labels.of(serviceKey), Math.max(0, now - dueAt) / 1000.0, Math::max));
        List<MultiGauge.Row<?>> rows = new ArrayList<>(ages.size());
        ages.forEach((tags, age) -> rows.add(MultiGauge.Row.of(tags, age)));
        oldest.register(rows, true);
    }
}
