package dev.hourglass.node.metrics;

import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.FiringListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * The engine's metrics in Micrometer: lateness of every fired attempt (a histogram, exported to
 * Prometheus and summarised by {@code /api/v1/stats}), and attempts by outcome.
 */
public final class FiringMetrics implements FiringListener {
    private final DistributionSummary lateness;
    private final Counter fired;
    /** For /api/v1/stats: percentiles since start, recorded lock-free (Micrometer exports buckets). */
    private final ConcurrentHistogram latenessSinceStart = new ConcurrentHistogram(3_600_000L, 2);

    private final Timer claims;
    private final Timer writes;
    private final DistributionSummary claimSize;
    private final Map<AttemptOutcome, Counter> outcomes = new EnumMap<>(AttemptOutcome.class);
    private final Counter quarantined;

    public FiringMetrics(MeterRegistry registry) {
        this.lateness = DistributionSummary.builder("hourglass.fire.lateness")
                .baseUnit("milliseconds")
                .description("delivered time minus fire time, per attempt")
                .publishPercentileHistogram()
                .maximumExpectedValue(3_600_000.0)
                .register(registry);
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
            outcomes.put(
                    o,
                    Counter.builder("hourglass.attempts")
                            .tag("outcome", o.name())
                            .register(registry));
        }
    }

    @Override
    public void fired(Job job, long firedAt) {
        fired.increment();
        long late = Math.max(0, firedAt - job.fireAt());
        lateness.record(late);
        latenessSinceStart.recordValue(Math.min(late, 3_600_000L));
    }

    @Override
    public void ended(AttemptResult result) {
        outcomes.get(result.outcome()).increment();
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

    /** p50/p95/p99/max of lateness in ms, since the node started. */
    public Map<String, Double> latenessSummary() {
        Map<String, Double> out = new LinkedHashMap<>();
        for (double p : new double[] {50, 95, 99}) {
            out.put("p" + (int) p, (double) latenessSinceStart.getValueAtPercentile(p));
        }
        out.put("max", (double) latenessSinceStart.getMaxValue());
        out.put("count", (double) latenessSinceStart.getTotalCount());
        return out;
    }

    public long firedCount() {
        return (long) fired.count();
    }

    public Map<String, Long> outcomeCounts() {
        Map<String, Long> out = new LinkedHashMap<>();
        outcomes.forEach((o, c) -> out.put(o.name(), (long) c.count()));
        return out;
    }
}
