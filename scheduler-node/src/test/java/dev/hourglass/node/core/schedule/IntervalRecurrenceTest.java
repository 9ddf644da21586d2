package dev.hourglass.node.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IntervalRecurrenceTest {
    final IntervalRecurrence every15s = new IntervalRecurrence(1_000_000, 15_000);

    @Test
    void theFirstOccurrenceIsTheAnchorThenEveryIntervalAfterIt() {
        assertThat(every15s.firstAfter(0)).hasValue(1_000_000);
        assertThat(every15s.firstAfter(999_999)).hasValue(1_000_000);
        assertThat(every15s.firstAfter(1_000_000)).hasValue(1_015_000);
        assertThat(every15s.firstAfter(1_014_999)).hasValue(1_015_000);
        assertThat(every15s.next(1_015_000, 3)).containsExactly(1_030_000L, 1_045_000L, 1_060_000L);
    }

    @Test
    void nothingPastTheEndOfTime() {
        assertThat(new IntervalRecurrence(Long.MAX_VALUE - 10, 1_000).firstAfter(Long.MAX_VALUE - 5))
                .isEmpty();
    }

    @Test
    void anIntervalMustBePositive() {
        assertThatThrownBy(() -> new IntervalRecurrence(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
