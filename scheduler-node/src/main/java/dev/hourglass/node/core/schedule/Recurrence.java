package dev.hourglass.node.core.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * When a schedule's occurrences are, as instants (epoch milliseconds): a cron expression in a zone
 * ({@link CronRecurrence}) or a fixed interval ({@link IntervalRecurrence}). Pure and thread-safe.
 */
public sealed interface Recurrence permits CronRecurrence, IntervalRecurrence, Series {
    /** The first occurrence strictly after {@code afterMs}, or empty if there is none. */
    OptionalLong firstAfter(long afterMs);

    /** Up to {@code count} occurrences strictly after {@code afterMs}, in order. */
    default List<Long> next(long afterMs, int count) {
        List<Long> times = new ArrayList<>(count);
        long from = afterMs;
        while (times.size() < count) {
            OptionalLong t = firstAfter(from);
            if (t.isEmpty()) {
                break;
            }
            times.add(t.getAsLong());
            from = t.getAsLong();
        }
        return times;
    }
}
