package dev.hourglass.node.metrics;

import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.port.PullListener;
import dev.hourglass.node.core.port.ReservationStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Pull consumers in Micrometer (docs/operations.md, "Metrics"): reserves answered and how long they
 * waited, jobs handed out, reservations whose TTR passed, and per PULL service its ready jobs and
 * the age of the oldest, refreshed by {@link #refresh}. The per-service gauges are the cluster's
 * figures, the same on every node (aggregate them with max, not sum).
 */
public final class PullMetrics implements PullListener, FiringListener {
    private final Timer reserveWaits;
    private final Counter handedOut;
    private final Counter ttrExpired;
    private final MultiGauge ready;
    private final MultiGauge oldestReadyAge;
    private final Supplier<Set<String>> pulledServiceKeys;

    public PullMetrics(MeterRegistry registry, Supplier<Set<String>> pulledServiceKeys) {
        this.pulledServiceKeys = pulledServiceKeys;
        this.reserveWaits = Timer.builder("hourglass.pull.reserve.wait")
                .description("how long answered reserves waited for a job (long poll); 0 when answered at once")
                .register(registry);
        this.handedOut = Counter.builder("hourglass.pull.reserved")
                .description("jobs reserved by pull consumers through this node")
                .register(registry);
        this.ttrExpired = Counter.builder("hourglass.pull.ttr.expired")
                .description("reservations that passed their deadline without a result (TIMEOUT), ended by this node")
                .register(registry);
        this.ready = MultiGauge.builder("hourglass.pull.ready")
                .description("jobs of a PULL service that are due and not reserved (cluster-wide)")
                .register(registry);
        this.oldestReadyAge = MultiGauge.builder("hourglass.pull.oldest.ready.age")
                .baseUnit("seconds")
                .description("how long the oldest ready job of a PULL service has waited (cluster-wide)")
                .register(registry);
    }

    @Override
    public void answered(int jobs, long waitedMs) {
        reserveWaits.record(Duration.ofMillis(waitedMs));
        handedOut.increment(jobs);
    }

    @Override
    public void ended(AttemptResult result) {
        if (result.outcome() == AttemptOutcome.TIMEOUT
                && pulledServiceKeys.get().contains(result.serviceKey())) {
            ttrExpired.increment();
        }
    }

    /** The PULL services' backlogs as read now, one per known PULL service. */
    public void refresh(Map<String, ReservationStore.Backlog> backlogs, long now) {
        List<MultiGauge.Row<?>> readyRows = new ArrayList<>();
        List<MultiGauge.Row<?>> ageRows = new ArrayList<>();
        for (Map.Entry<String, ReservationStore.Backlog> e : backlogs.entrySet()) {
            String key = e.getKey();
            int slash = key.indexOf('/');
            Tags tags = Tags.of("app", key.substring(0, slash), "service", key.substring(slash + 1));
            ReservationStore.Backlog b = e.getValue();
            long readyNow = b.ready();
            double age = b.oldestReadyDueAt() == null ? 0 : Math.max(0, now - b.oldestReadyDueAt()) / 1000.0;
            readyRows.add(MultiGauge.Row.of(tags, readyNow));
            ageRows.add(MultiGauge.Row.of(tags, age));
        }
        ready.register(readyRows, true);
        oldestReadyAge.register(ageRows, true);
    }
}
