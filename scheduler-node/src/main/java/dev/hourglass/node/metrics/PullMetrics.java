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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Pull consumers in Micrometer (docs/operations.md, "Metrics"): reserves answered and how long they
 * waited, jobs handed out and how late (per service, with the push lateness's buckets; summarised
 * since start for {@code /api/v1/stats}), reservations whose TTR passed, and per PULL service its
 * ready jobs and the age of the oldest, refreshed by {@link #refresh}. The per-service gauges are
 * the cluster's figures, the same on every node (aggregate them with max, not sum); the lateness
 * is this node's answers'.
 */
public final class PullMetrics implements PullListener, FiringListener {
    private final Timer reserveWaits;
    private final Counter handedOut;
    private final Counter ttrExpired;
    private final MultiGauge ready;
    private final MultiGauge oldestReadyAge;
    private final Supplier<Set<String>> pulledServiceKeys;
    private final MeterRegistry registry;
    private final ServiceLabels labels;
    private final Map<String, Timer> latenessByService = new ConcurrentHashMap<>();
    /** For /api/v1/stats: percentiles since start, recorded lock-free (Micrometer exports buckets). */
    private final ConcurrentHistogram latenessSinceStart = new ConcurrentHistogram(MAX_LATENESS_MS, 2);

    private static final long MAX_LATENESS_MS = 3_600_000L;

    /** @param labels the services that get series of their own, shared with the push metrics */
    public PullMetrics(MeterRegistry registry, ServiceLabels labels, Supplier<Set<String>> pulledServiceKeys) {
        this.registry = registry;
        this.labels = labels;
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
    public void answered(List<ReservationStore.HeldJob> jobs, long waitedMs, long at) {
        reserveWaits.record(Duration.ofMillis(waitedMs));
        handedOut.increment(jobs.size());
        for (ReservationStore.HeldJob h : jobs) {
            long late = Math.min(Math.max(0, at - h.dueAt()), MAX_LATENESS_MS);
            latenessByService
                    .computeIfAbsent(h.job().serviceKey(), this::latenessOf)
                    .record(late, TimeUnit.MILLISECONDS);
            latenessSinceStart.recordValue(late);
        }
    }

    private Timer latenessOf(String serviceKey) {
        return Timer.builder("hourglass.pull.handout.lateness")
                .description("when this node answered a reserve with the job minus its due time, per reservation")
                .tags(labels.of(serviceKey))
                .serviceLevelObjectives(FiringMetrics.LATENESS_BUCKETS)
                .register(registry); // services over the cap share one timer: the registry's
    }

    /** p50/p95/p99/max of the hand-out lateness in ms and the count, since the node started. */
    public Map<String, Double> latenessSummary() {
        return FiringMetrics.summary(latenessSinceStart);
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
