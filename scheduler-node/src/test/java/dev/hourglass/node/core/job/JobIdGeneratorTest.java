package dev.hourglass.node.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.testing.ManualClock;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JobIdGeneratorTest {
    @Test
    void idsAreUniqueAndRiseEvenWithinOneMillisecondAndWhenTheClockGoesBack() {
        ManualClock clock = new ManualClock(1_800_000_000_000L);
        JobIdGenerator ids = new JobIdGenerator(clock, 5);
        Set<Long> seen = new HashSet<>();
        long last = 0;
        for (int i = 0; i < 10_000; i++) { // more than 4096 per millisecond: borrows the next ms
            long id = ids.next();
            assertThat(id).isGreaterThan(last);
            assertThat(seen.add(id)).isTrue();
            last = id;
        }
        clock.advance(-5_000);
        assertThat(ids.next()).isGreaterThan(last);
    }

    @Test
    void workersNeverCollide() {
        ManualClock clock = new ManualClock(1_800_000_000_000L);
        JobIdGenerator a = new JobIdGenerator(clock, 1);
        JobIdGenerator b = new JobIdGenerator(clock, 2);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            assertThat(seen.add(a.next())).isTrue();
            assertThat(seen.add(b.next())).isTrue();
        }
    }
}
