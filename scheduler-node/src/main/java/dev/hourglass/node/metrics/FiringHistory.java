package dev.hourglass.node.metrics;

import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.FiringListener;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * This node's firing over time, for the dashboard's charts without an external Prometheus: a ring
 * of the last {@value #SECONDS} seconds and one of the last {@value #MINUTES} minutes, each point
 * holding attempts started, attempts ended by outcome and lateness p50/p99/max; and, per service,
 * attempts and failures of the last minute.
 *
 * <p>Engine threads only add to lock-free counters and a {@link Recorder}; {@link #roll} (once a
 * second, from one thread) closes a point. Memory is bounded whatever the load: a few hundred small
 * points, four histograms (about 100 KiB) and 61 totals per service active in the last minute.
 * Intervals are timed with the wall clock of the points' labels; one that steps back skips a point.
 */
public final class FiringHistory implements FiringListener {
    public static final int SECONDS = 300;
    public static final int MINUTES = 60;
    private static final long MAX_LATENESS_MS = 3_600_000L;
    private static final long MINUTE_MS = 60_000L;

    /** One closed interval: {@code [at - ms, at)}. */
    public record Point(
            long at, long ms, long fired, Map<AttemptOutcome, Long> attempts, long p50, long p99, long max) {}

    /** A service's last minute on this node. */
    public record ServiceActivity(long attempts, long failed) {}

    private final Recorder lateness = new Recorder(MAX_LATENESS_MS, 2);
    private final LongAdder fired = new LongAdder();
    private final Map<AttemptOutcome, LongAdder> outcomes = new EnumMap<>(AttemptOutcome.class);
    private final ConcurrentHashMap<String, ServiceCounters> services = new ConcurrentHashMap<>();

    // rolled state, guarded by this
    private final ArrayDeque<Point> seconds = new ArrayDeque<>();
    private final ArrayDeque<Point> minutes = new ArrayDeque<>();
    private Histogram interval;
    private final Histogram minuteLateness = new Histogram(MAX_LATENESS_MS, 2);
    private long lastRoll = -1;
    private long minuteStart = -1;
    /** Where counting began in the open minute: its start, or the first roll inside it. */
    private long minuteCountedFrom = -1;

    private long minuteFired;
    private final Map<AttemptOutcome, Long> minuteAttempts = new EnumMap<>(AttemptOutcome.class);
    private long lastFired;
    private final Map<AttemptOutcome, Long> lastOutcomes = new EnumMap<>(AttemptOutcome.class);

    private static final class ServiceCounters {
        final LongAdder attempts = new LongAdder();
        final LongAdder failed = new LongAdder();
        /**
         * Totals at each of the last 61 rolls, oldest first: the last minute is newest - oldest.
         * Starts at zero, so the service's first attempts count even before its first roll.
         */
        final ArrayDeque<long[]> totals = new ArrayDeque<>(List.of(new long[] {0, 0}));
    }

    public FiringHistory() {
        for (AttemptOutcome o : AttemptOutcome.values()) {
            outcomes.put(o, new LongAdder());
            lastOutcomes.put(o, 0L);
            minuteAttempts.put(o, 0L);
        }
    }

    @Override
    public void fired(Job job, long firedAt) {
        fired.increment();
        lateness.recordValue(Math.min(Math.max(0, firedAt - job.fireAt()), MAX_LATENESS_MS));
    }

    @Override
    public void ended(AttemptResult result) {
        if (result.outcome() == null) {
            return;
        }
        outcomes.get(result.outcome()).increment();
        ServiceCounters s = services.computeIfAbsent(result.serviceKey(), k -> new ServiceCounters());
        s.attempts.increment();
        if (result.outcome() != AttemptOutcome.SUCCESS) {
            s.failed.increment();
        }
    }

    /**
     * Closes the interval since the last roll as a point at {@code now}; also the open minute, once
     * {@code now} has reached its end. The first call only starts counting.
     */
    public synchronized void roll(long now) {
        interval = lateness.getIntervalHistogram(interval);
        long firedTotal = fired.sum();
        Map<AttemptOutcome, Long> attempts = new EnumMap<>(AttemptOutcome.class);
        for (AttemptOutcome o : AttemptOutcome.values()) {
            long total = outcomes.get(o).sum();
            attempts.put(o, total - lastOutcomes.get(o));
            lastOutcomes.put(o, total);
        }
        long firedNow = firedTotal - lastFired;
        lastFired = firedTotal;
        rollServices();
        if (lastRoll < 0 || now <= lastRoll) {
            if (minuteStart < 0) {
                minuteStart = now - now % MINUTE_MS;
                minuteCountedFrom = now;
            }
            lastRoll = Math.max(lastRoll, now);
            return; // the first call (or a wall clock that stepped back): no interval to close
        }
        add(seconds, point(now, now - lastRoll, firedNow, attempts, interval), SECONDS);
        // an interval counts in the minute it started in
        minuteLateness.add(interval);
        minuteFired += firedNow;
        attempts.forEach((o, n) -> minuteAttempts.merge(o, n, Long::sum));
        if (now - minuteStart >= MINUTE_MS) {
            closeMinute(now);
        }
        lastRoll = now;
    }

    private void closeMinute(long now) {
        long end = now - now % MINUTE_MS;
        add(
                minutes,
                point(end, end - minuteCountedFrom, minuteFired, new EnumMap<>(minuteAttempts), minuteLateness),
                MINUTES);
        minuteLateness.reset();
        minuteFired = 0;
        minuteAttempts.replaceAll((o, n) -> 0L);
        minuteStart = end;
        minuteCountedFrom = end;
    }

    /**
     * Also forgets a service idle for a whole minute, so the map holds the services active lately,
     * not every service ever seen (an attempt ending while its entry is removed may go uncounted
     * in that last-minute figure: a display figure, not a metric).
     */
    private void rollServices() {
        services.values().removeIf(s -> {
            s.totals.addLast(new long[] {s.attempts.sum(), s.failed.sum()});
            if (s.totals.size() > 61) {
                s.totals.removeFirst();
            }
            return s.totals.size() == 61 && s.totals.peekFirst()[0] == s.totals.peekLast()[0];
        });
    }

    private static Point point(long at, long ms, long fired, Map<AttemptOutcome, Long> attempts, Histogram h) {
        boolean empty = h.getTotalCount() == 0;
        return new Point(
                at,
                ms,
                fired,
                attempts,
                empty ? 0 : h.getValueAtPercentile(50),
                empty ? 0 : h.getValueAtPercentile(99),
                empty ? 0 : h.getMaxValue());
    }

    private static void add(ArrayDeque<Point> ring, Point p, int capacity) {
        ring.addLast(p);
        if (ring.size() > capacity) {
            ring.removeFirst();
        }
    }

    /** The last {@value #SECONDS} one-second points, oldest first. */
    public synchronized List<Point> seconds() {
        return new ArrayList<>(seconds);
    }

    /** The last {@value #MINUTES} closed minutes, oldest first. */
    public synchronized List<Point> minutes() {
        return new ArrayList<>(minutes);
    }

    /** Per service key ({@code app/service}): attempts ended and failed in the last minute of rolls. */
    public synchronized Map<String, ServiceActivity> lastMinuteByService() {
        Map<String, ServiceActivity> out = new TreeMap<>();
        services.forEach((key, s) -> {
            if (s.totals.size() >= 2) {
                long[] first = s.totals.peekFirst();
                long[] last = s.totals.peekLast();
                out.put(key, new ServiceActivity(last[0] - first[0], last[1] - first[1]));
            }
        });
        return out;
    }
}
