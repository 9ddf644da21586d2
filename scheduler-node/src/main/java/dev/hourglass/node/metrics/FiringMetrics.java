package dev.hourglass.node.metrics;

import dev.hourglass.node.firing.AttemptResult;
import dev.hourglass.node.firing.FiringListener;
import dev.hourglass.node.job.AttemptOutcome;
import dev.hourglass.node.job.Job;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The engine's metrics in Micrometer: lateness of every fired attempt (a histogram, exported to
 * Prometheus and summarised by {@code /api/v1/stats}), and attempts by outcome.
 */
public final class FiringMetrics implements FiringListener {
    private final DistributionSummary lateness;
    private final Counter fired;
    private final Map<AttemptOutcome, Counter> outcomes = new EnumMap<>(AttemptOutcome.class);

    public FiringMetrics(MeterRegistry registry) {
        this.lateness = DistributionSummary.builder("hourglass.fire.lateness")
                .baseUnit("milliseconds")
                .description("delivered time minus fire time, per attempt")
                .publishPercentiles(0.5, 0.95, 0.99)
                .publishPercentileHistogram()
                .register(registry);
        this.fired = Counter.builder("hourglass.fired")
                .description("attempts started")
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
        lateness.record(Math.max(0, firedAt - job.fireAt()));
    }

    @Override
    public void ended(AttemptResult result) {
        outcomes.get(result.outcome()).increment();
    }

    /** p50/p95/p99/max of lateness, in ms, over the recent window Micrometer keeps. */
    public Map<String, Double> latenessSummary() {
        Map<String, Double> out = new LinkedHashMap<>();
        var snapshot = lateness.takeSnapshot();
        for (ValueAtPercentile p : snapshot.percentileValues()) {
            out.put("p" + Math.round(p.percentile() * 100), p.value());
        }
        out.put("max", snapshot.max());
        out.put("count", (double) snapshot.count());
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
