package dev.hourglass.node.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.node.cron.SpringCronSyntax;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The daylight-saving mapping of docs/api.md ("Schedules"), date by date, in two zones with
 * daylight saving and one without. Expected instants are written in UTC, worked out by hand from
 * the zones' rules: Berlin changes at 01:00 UTC (29 March 2026, 02:00 CET → 03:00 CEST; 25 October
 * 2026, 03:00 CEST → 02:00 CET), New York at 07:00 UTC on 8 March and 06:00 UTC on 1 November 2026.
 */
class CronRecurrenceTest {
    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    static CronRecurrence cron(String expression, ZoneId zone) {
        return CronRecurrence.of(expression, zone, new SpringCronSyntax());
    }

    static long utc(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    static List<Long> utc(String... instants) {
        return java.util.Arrays.stream(instants).map(CronRecurrenceTest::utc).toList();
    }

    @Test
    void aFixedTimeInTheSpringForwardGapFiresOnceWhenTheGapEnds() {
        CronRecurrence at0230 = cron("0 30 2 * * *", BERLIN);
        assertThat(at0230.isFixedTime()).isTrue();
        assertThat(at0230.next(utc("2026-03-28T00:00:00Z"), 3))
                .containsExactlyElementsOf(utc(
                        "2026-03-28T01:30:00Z", // 02:30 CET
                        "2026-03-29T01:00:00Z", // 02:30 does not exist: 03:00 CEST, the gap's end
                        "2026-03-30T00:30:00Z")); // 02:30 CEST
    }

    @Test
    void aFixedTimeWithSeveralMatchesInTheGapStillFiresOnce() {
        assertThat(cron("0 0/15 2 * * *", BERLIN).next(utc("2026-03-29T00:00:00Z"), 2))
                .containsExactlyElementsOf(utc("2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"));
    }

    @Test
    void aFixedTimeInTheRepeatedHourFiresAtItsFirstOccurrenceOnly() {
        assertThat(cron("0 30 2 * * *", BERLIN).next(utc("2026-10-24T00:00:00Z"), 3))
                .containsExactlyElementsOf(utc(
                        "2026-10-24T00:30:00Z", // 02:30 CEST
                        "2026-10-25T00:30:00Z", // 02:30 CEST, the first of two; not 01:30Z (CET)
                        "2026-10-26T01:30:00Z")); // 02:30 CET
    }

    @Test
    void anHourlyExpressionHasNoOccurrenceInTheGapAndNothingPilesUpAfterIt() {
        CronRecurrence hourly = cron("0 30 * * * *", BERLIN);
        assertThat(hourly.isFixedTime()).isFalse();
        assertThat(hourly.next(utc("2026-03-29T00:00:00Z"), 3))
                .containsExactlyElementsOf(utc(
                        "2026-03-29T00:30:00Z", // 01:30 CET
                        "2026-03-29T01:30:00Z", // 03:30 CEST: no 02:30 that day
                        "2026-03-29T02:30:00Z"));
    }

    @Test
    void anHourlyExpressionFiresInBothPassesOfTheRepeatedHour() {
        assertThat(cron("0 30 * * * *", BERLIN).next(utc("2026-10-24T23:00:00Z"), 4))
                .containsExactlyElementsOf(utc(
                        "2026-10-24T23:30:00Z", // 01:30 CEST
                        "2026-10-25T00:30:00Z", // 02:30 CEST
                        "2026-10-25T01:30:00Z", // 02:30 CET, the repeated hour's second pass
                        "2026-10-25T02:30:00Z")); // 03:30 CET
    }

    @Test
    void aStepExpressionFollowsRealTimeThroughTheRepeatedHourFromAnyPointInIt() {
        CronRecurrence every20 = cron("0 */20 * * * *", BERLIN);
        List<Long> expected = utc(
                "2026-10-25T00:20:00Z",
                "2026-10-25T00:40:00Z",
                "2026-10-25T01:00:00Z", // 02:00 CET
                "2026-10-25T01:20:00Z",
                "2026-10-25T01:40:00Z",
                "2026-10-25T02:00:00Z"); // 03:00 CET
        assertThat(every20.next(utc("2026-10-25T00:00:00Z"), 6)).containsExactlyElementsOf(expected);
        // asked from inside the second pass, and from its last second before it
        assertThat(every20.firstAfter(utc("2026-10-25T01:10:00Z"))).hasValue(utc("2026-10-25T01:20:00Z"));
        assertThat(every20.firstAfter(utc("2026-10-25T00:59:59.500Z"))).hasValue(utc("2026-10-25T01:00:00Z"));
    }

    @Test
    void aPerSecondExpressionGoesOnSecondBySecondAcrossTheFallBack() {
        CronRecurrence everySecond = cron("* * * * * *", BERLIN);
        assertThat(everySecond.firstAfter(utc("2026-10-25T00:59:59.500Z"))).hasValue(utc("2026-10-25T01:00:00Z"));
        assertThat(everySecond.firstAfter(utc("2026-10-25T01:00:00Z"))).hasValue(utc("2026-10-25T01:00:01Z"));
        assertThat(everySecond.firstAfter(utc("2026-10-25T01:59:59Z"))).hasValue(utc("2026-10-25T02:00:00Z"));
    }

    @Test
    void newYorkSpringForwardAndFallBack() {
        assertThat(cron("0 30 2 * * *", NEW_YORK).firstAfter(utc("2026-03-08T06:00:00Z")))
                .hasValue(utc("2026-03-08T07:00:00Z")); // 02:30 does not exist: 03:00 EDT
        assertThat(cron("30 1 * * *", NEW_YORK).next(utc("2026-11-01T04:00:00Z"), 2))
                .containsExactlyElementsOf(utc(
                        "2026-11-01T05:30:00Z", // 01:30 EDT only
                        "2026-11-02T06:30:00Z")); // 01:30 EST
        assertThat(cron("0 30 1-2 * * *", NEW_YORK).next(utc("2026-11-01T04:00:00Z"), 3))
                .containsExactlyElementsOf(utc(
                        "2026-11-01T05:30:00Z", // 01:30 EDT
                        "2026-11-01T06:30:00Z", // 01:30 EST: a range follows real time
                        "2026-11-01T07:30:00Z")); // 02:30 EST
        assertThat(cron("0 30 2-3 * * *", NEW_YORK).next(utc("2026-03-08T05:00:00Z"), 2))
                .containsExactlyElementsOf(utc(
                        "2026-03-08T07:30:00Z", // 03:30 EDT: 02:30 does not exist and is not made up
                        "2026-03-09T06:30:00Z"));
    }

    @Test
    void aZoneWithoutDaylightSavingOnWeekdays() {
        // Friday 27 November 2026, 08:00 in Shanghai (UTC+8 all year)
        assertThat(cron("0 30 9 * * MON-FRI", SHANGHAI).next(utc("2026-11-27T00:00:00Z"), 2))
                .containsExactlyElementsOf(utc("2026-11-27T01:30:00Z", "2026-11-30T01:30:00Z"));
    }

    @Test
    void fiveFieldsAreReadWithZeroSecondsAndMacrosAsSpringHasThem() {
        long from = utc("2026-11-27T00:00:00Z");
        assertThat(cron("30 9 * * 1-5", SHANGHAI).next(from, 3))
                .isEqualTo(cron("0 30 9 * * MON-FRI", SHANGHAI).next(from, 3));
        assertThat(cron("@daily", BERLIN).isFixedTime()).isTrue();
        assertThat(cron("@hourly", BERLIN).isFixedTime()).isFalse();
        assertThat(cron("@hourly", BERLIN).firstAfter(utc("2026-11-27T10:15:00Z")))
                .hasValue(utc("2026-11-27T11:00:00Z"));
        assertThat(cron("0 0 12 L * ?", ZoneId.of("UTC")).firstAfter(from)).hasValue(utc("2026-11-30T12:00:00Z"));
        assertThat(cron("0 0 12 ? * 5#4", ZoneId.of("UTC")).firstAfter(utc("2026-11-01T00:00:00Z")))
                .hasValue(utc("2026-11-27T12:00:00Z")); // 5 is Friday: the month's fourth Friday
    }

    @Test
    void anExpressionThatNeverFiresHasNoOccurrence() {
        assertThat(cron("0 0 0 30 2 *", BERLIN).firstAfter(utc("2026-01-01T00:00:00Z")))
                .isEmpty();
    }

    @Test
    void aBadExpressionIsRefusedWithItsReason() {
        assertThatThrownBy(() -> cron("0 0 * *", BERLIN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("6 fields");
        assertThatThrownBy(() -> cron("0 61 * * * *", BERLIN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cron("@fortnightly", BERLIN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@fortnightly");
        assertThatThrownBy(() -> cron(" ", BERLIN)).isInstanceOf(IllegalArgumentException.class);
    }
}
