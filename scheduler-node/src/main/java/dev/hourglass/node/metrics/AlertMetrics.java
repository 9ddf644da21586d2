package dev.hourglass.node.metrics;

import dev.hourglass.node.core.alert.Alert;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code hourglass_alerts_firing{app,service,kind}}: 1 per FIRING alert, exported by every node
 * from the store (so use {@code max by (app, service, kind)} across nodes); an alert that resolves
 * disappears from the export.
 */
public final class AlertMetrics implements Consumer<List<Alert>> {
    private final MultiGauge firing;

    public AlertMetrics(MeterRegistry registry) {
        this.firing = MultiGauge.builder("hourglass.alerts.firing")
                .description("1 for every alert now FIRING")
                .register(registry);
    }

    @Override
    public void accept(List<Alert> alerts) {
        firing.register(
                alerts.stream()
                        .map(a -> MultiGauge.Row.of(
                                Tags.of(
                                        "app",
                                        a.app(),
                                        "service",
                                        a.service(),
                                        "kind",
                                        a.kind().name()),
                                1))
                        .toList(),
                true);
    }
}
