package dev.hourglass.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OverdueMetricsTest {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final AtomicLong now = new AtomicLong(100_000);
    final ServiceLabels labels = new ServiceLabels(2);
    final OverdueMetrics overdue = new OverdueMetrics(registry, labels, now::get);

    private Double age(String app, String service) {
        Gauge g = registry.find("hourglass.oldest.overdue")
                .tags("app", app, "service", service)
                .gauge();
        return g == null ? null : g.value();
    }

    @Test
    void theAgeIsTakenWhenReadSoItGrowsWhileTheStoreCannotBeRead() {
        overdue.refresh(Map.of("shop/close", 90_000L));
        assertThat(age("shop", "close")).isEqualTo(10.0);
        now.addAndGet(5_000); // no refresh: the store is down, say
        assertThat(age("shop", "close")).isEqualTo(15.0);
        overdue.refresh(Map.of("shop/close", 104_000L)); // the old job went; the next is younger
        assertThat(age("shop", "close")).isEqualTo(1.0);
    }

    @Test
    void onlyOverdueServicesTakeALabelPlaceAndTheRestShareTheEarliestOfThem() {
        labels.of("shop/fired"); // a service this node fired for: one of the two places
        overdue.refresh(Map.of(
                "shop/fired", 200_000L, // due later: keeps its own labels, age 0
                "shop/later", 150_000L, // due later, never fired: no place taken
                "shop/late", 40_000L, // the most overdue: takes the second place
                "bank/late", 70_000L, // overdue, but less: no place left (in any map order)
                "bank/later", 500_000L));
        assertThat(age("shop", "fired")).isZero();
        assertThat(age("shop", "late")).isEqualTo(60.0);
        assertThat(age("shop", "later")).isNull();
        assertThat(age("_other", "_other"))
                .as("the oldest of those without a place")
                .isEqualTo(30.0);

        overdue.refresh(Map.of()); // nothing waits any more: no series
        assertThat(age("shop", "late")).isNull();
        assertThat(registry.find("hourglass.oldest.overdue").gauges()).isEmpty();
    }
}
