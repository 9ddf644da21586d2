package dev.hourglass.node.core.schedule;

import java.util.OptionalLong;

/**
 * Every {@code everyMs} of elapsed time from {@code anchorMs} (the schedule's {@code startAt}, or
 * its creation): {@code anchorMs + k × everyMs} for k ≥ 0. Exact elapsed time, so no zone and no
 * daylight saving: {@code PT1H} is 3,600,000 ms, also across a clock change.
 */
public record IntervalRecurrence(long anchorMs, long everyMs) implements Recurrence {
    public IntervalRecurrence {
        if (everyMs < 1) {
            throw new IllegalArgumentException("everyMs must be positive");
        }
    }

    @Override
    public OptionalLong firstAfter(long afterMs) {
        if (afterMs < anchorMs) {
            return OptionalLong.of(anchorMs);
        }
        long steps = (afterMs - anchorMs) / everyMs + 1;
        try {
            return OptionalLong.of(Math.addExact(anchorMs, Math.multiplyExact(steps, everyMs)));
        } catch (ArithmeticException beyondTime) {
            return OptionalLong.empty();
        }
    }
}
