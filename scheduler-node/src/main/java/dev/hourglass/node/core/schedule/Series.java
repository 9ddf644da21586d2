package dev.hourglass.node.core.schedule;

import java.util.OptionalLong;

/**
 * A schedule's occurrences: its recurrence between {@code startAtMs} and {@code endAtMs}, both
 * inclusive (null: unbounded). Pure and thread-safe.
 */
public record Series(Recurrence recurrence, Long startAtMs, Long endAtMs) implements Recurrence {
    public Series {
        if (startAtMs != null && endAtMs != null && endAtMs < startAtMs) {
            throw new IllegalArgumentException("endAt is before startAt");
        }
    }

    /** The first occurrence strictly after {@code afterMs}, or empty when there is none (any more). */
    @Override
    public OptionalLong firstAfter(long afterMs) {
        long from = startAtMs == null ? afterMs : Math.max(afterMs, startAtMs - 1);
        OptionalLong next = recurrence.firstAfter(from);
        if (next.isPresent() && endAtMs != null && next.getAsLong() > endAtMs) {
            return OptionalLong.empty();
        }
        return next;
    }
}
