package dev.hourglass.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class Iso8601Test {
    @Test
    void formatsUtcWithMilliseconds() {
        assertThat(Iso8601.format(Instant.parse("2026-11-21T15:30:00Z").toEpochMilli()))
                .isEqualTo("2026-11-21T15:30:00.000Z");
    }

    /** Every output parses back to the same instant, whatever the year: the sign of a year is kept. */
    @Test
    void timesFarFromTodayKeepTheirSignAndParseBack() {
        for (long ms : new long[] {Long.MIN_VALUE, -62_167_219_200_001L, 253_402_300_800_000L, Long.MAX_VALUE}) {
            String text = Iso8601.format(ms);
            assertThat(Instant.parse(text).toEpochMilli()).as(text).isEqualTo(ms);
        }
        assertThat(Iso8601.format(Long.MIN_VALUE)).startsWith("-292275055-");
    }
}
