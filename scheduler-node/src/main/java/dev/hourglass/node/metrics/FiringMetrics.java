package dev.hourglass.node.metrics;

import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.FiringListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The engine's metrics in Micrometer: lateness of every fired attempt (a histogram in seconds, by
 * app and service, exported to Prometheus; summarised in milliseconds by {@code /api/v1/stats}),
 * and attempts by outcome, app and service. The per-service labels are capped by {@link
 * ServiceLabels}.
 */
public final class FiringMetrics implements FiringListener {
    /**
     * The lateness histogram's bucket bounds: the milliseconds Hourglass aims at, the seconds a
     * failover or a throttled receiver costs, the minutes an outage does. Fixed buckets, not
     * Micrometer's percentile histogram (some 70 buckets), as every service multiplies them.
     */
    static final Duration[] LATENESS_BUCKETS = Stream.of(
                    1L,
                    5L,
                    10L,
                    25L,
                    50L,
                    100L,
                    250L,
                    500L,
                    1_000L,
                    2_500L,
                    5_000L,
                    10_000L,
                    30_000L,
                    60_000L,
                    300_000L,
                    3_600_000L)
            .map(Duration::ofMillis)
            .toArray(Duration[]::new);

    private final MeterRegistry registry;
    private final ServiceLabels labels;
    private final Map<String, Timer> latenessByService = new ConcurrentHashMap<>();
    private final Map<String, Counter[]> attemptsByService = new ConcurrentHashMap<>();
    private final Counter fired;
    /** For /api/v1/stats: percentiles since start, recorded lock-free (Micrometer exports buckets). */
    private final ConcurrentHistogram latenessSinceStart = new ConcurrentHistogram(3_600_000L, 2);

    private final Timer claims;
    private final Timer writes;
    private final DistributionSummary claimSize;
    private final Map<AttemptOutcome, AtomicLong> outcomes = new EnumMap<>(AttemptOutcome.class);
    private final Counter quarantined;

    /** @param labels the services that get series of their own (the others share "other") */
    public FiringMetrics(MeterRegistry registry, ServiceLabels labels) {
        this.registry = registry;
        this.labels = labels;
        this.fired = Counter.builder("hourglass.fired")
                .description("attempts started")
                .register(registry);
        this.claims = Timer.builder("hourglass.claim")
                .description("claim transactions")
                .register(registry);
        this.writes = Timer.builder("hourglass.result.write")
                .description("result write transactions")
                .register(registry);
        this.claimSize = DistributionSummary.builder("hourglass.claim.jobs")
                .description("jobs per claim")
                .register(registry);
        this.quarantined = Counter.builder("hourglass.results.quarantined")
                .description("attempt results the database refused; their jobs ended FAILED in place")
                .register(registry);
        for (AttemptOutcome o : AttemptOutcome.values()) {
            outcomes.put(o, new AtomicLong());
        }
    }

    @Override
    public void fired(Job job, long firedAt) {
        fired.increment();
        long late = Math.max(0, firedAt - job.fireAt());
        latenessByService.computeIfAbsent(job.serviceKey(), this::latenessOf).record(late, TimeUnit.MILLISECONDS);
        latenessSinceStart.recordValue(Math.min(late, 3_600_000L));
    }

    private Timer latenessOf(String serviceKey) {
        return Timer.builder("hourglass.fire.lateness")
                .description("delivered time minus fire time, per attempt")
                .tags(labels.of(serviceKey))
                .serviceLevelObjectives(LATENESS_BUCKETS)
                .register(registry); // services over the cap share one timer: the registry's
    }

    @Override
    public void ended(AttemptResult result) {
        outcomes.get(result.outcome()).incrementAndGet();
        attemptsByService
                .computeIfAbsent(result.serviceKey(), this::attemptsOf)[
                result.outcome().ordinal()].increment();
    }

    private Counter[] attemptsOf(String serviceKey) {
        Tags service = labels.of(serviceKey);
        Counter[] byOutcome = new Counter[AttemptOutcome.values().length];
        for (AttemptOutcome o : AttemptOutcome.values()) {
            byOutcome[o.ordinal()] = Counter.builder("hourglass.attempts")
                    .description("attempts finished, by outcome")
                    .tags(service)
                    .tag("outcome", o.name())
                    .register(registry);
        }
        return byOutcome;
    }

    @Override
    public void quarantined(AttemptResult result) {
        quarantined.increment();
    }

    @Override
    public void claimed(int jobs, long nanos) {
        claims.record(nanos, TimeUnit.NANOSECONDS);
        claimSize.record(jobs);
    }

    @Override
    public void wrote(int results, long nanos) {
        writes.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** p50/p95/p99/max of lateness in ms, and the count, since the node started. */
    public Map<String, Double> latenessSummary() {
        return summary(latenessSinceStart);
    }

    /** What {@code /api/v1/stats} shows of a lateness histogram: p50, p95, p99, max (ms) and count. */
    static Map<String, Double> summary(Histogram lateness) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (double p : new double[] {50, 95, 99}) {
            out.put("p" + (int) p, (double) lateness.getValueAtPercentile(p));
        }
        out.put("max", (double) lateness.getMaxValue());
        out.put("count", (double) lateness.getTotalCount());
        return out;
    }

    public long firedCount() {
        return (long) fired.count();
    }

    public Map<String, Long> outcomeCounts() {
        Map<String, Long> out = new LinkedHashMap<>();
        outcomes.forEach((o, c) -> out.put(o.name(), c.get()));
        return out;
    }
}
