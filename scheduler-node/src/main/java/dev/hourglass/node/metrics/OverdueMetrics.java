package dev.hourglass.node.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * {@code hourglass_oldest_overdue_seconds{app,service}}: per service with a waiting job (DELAYED:
 * neither claimed nor reserved), how long the oldest of them is past its due time, 0 while none is
 * due; a service with no waiting job has no series. The due times are read from the store by every
 * node (the same on each: aggregate with max); the age is computed when Prometheus scrapes, so it
 * keeps growing while the store cannot be read. A service takes a place of {@link ServiceLabels}'s
 * only once it is overdue: the many services whose next job is hours away must not use up the
 * places of those the node fires for.
 */
public final class OverdueMetrics {
    private final MultiGauge oldest;
    private final ServiceLabels labels;
    private final LongSupplier now;

    public OverdueMetrics(MeterRegistry registry, ServiceLabels labels, LongSupplier now) {
        this.labels = labels;
        this.now = now;
        this.oldest = MultiGauge.builder("hourglass.oldest.overdue")
                .baseUnit("seconds")
                .description("how long the oldest waiting job of a service is past its due time (cluster-wide)")
                .register(registry);
    }

    /** @param oldestDueAt per service key, the due time of its oldest waiting job, as read now */
    public void refresh(Map<String, Long> oldestDueAt) {
        long at = now.getAsLong();
        Map<Tags, Long> earliest = new HashMap<>();
        // the most overdue first: when the places run out, those are the ones to show by name
        oldestDueAt.entrySet().stream().sorted(Map.Entry.comparingByValue()).forEach(e -> {
            Tags tags = e.getValue() < at ? labels.of(e.getKey()) : labels.ifLabelled(e.getKey());
            earliest.merge(tags, e.getValue(), Math::min);
        });
        List<MultiGauge.Row<?>> rows = new ArrayList<>(earliest.size());
        earliest.forEach((tags, dueAt) ->
                rows.add(MultiGauge.Row.of(tags, dueAt, d -> Math.max(0, now.getAsLong() - d) / 1000.0)));
        oldest.register(rows, true);
    }
}
