package dev.hourglass.node.metrics;

import dev.hourglass.node.core.port.RetentionListener;
import dev.hourglass.node.retention.RetentionSweep;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Retention's metrics: {@code hourglass_retention_deleted_rows_total{table=...}} and the duration
 * of runs ({@code hourglass_retention_run_seconds}). Only the master's counters move.
 */
public final class RetentionMetrics implements RetentionListener {
    private final MeterRegistry registry;
    private final Map<String, Counter> deleted = new ConcurrentHashMap<>();
    private final Timer runs;

    public RetentionMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.runs = Timer.builder("hourglass.retention.run")
                .description("retention runs (both tables, bounded per run)")
                .register(registry);
        for (String table : RetentionSweep.TABLES) {
            counter(table); // exported at 0 from the start, so a rate can be taken at once
        }
    }

    private Counter counter(String table) {
        return deleted.computeIfAbsent(table, t -> Counter.builder("hourglass.retention.deleted.rows")
                .tag("table", t)
                .description("rows deleted by retention")
                .register(registry));
    }

    @Override
    public void deleted(String table, int rows) {
        if (rows > 0) {
            counter(table).increment(rows);
        }
    }

    @Override
    public void ran(long nanos) {
        runs.record(nanos, TimeUnit.NANOSECONDS);
    }
}
