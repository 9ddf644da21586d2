package dev.hourglass.node.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.core.schedule.MaterializationPlanner.Plan;
import dev.hourglass.node.core.schedule.MaterializationPlanner.Planned;
import java.util.List;
import org.junit.jupiter.api.Test;

class MaterializationPlannerTest {
    static final long HOUR = 3_600_000;
    /** Occurrences every second, from 0. */
    static final Series EVERY_SECOND = new Series(new IntervalRecurrence(0, 1_000), null, null);

    final MaterializationPlanner planner = new MaterializationPlanner(30_000, 60_000);

    @Test
    void onTimeEveryOccurrenceWithinTheLookaheadIsSubmittedAtItsOwnTime() {
        long now = 10 * HOUR;
        Plan plan = planner.plan(EVERY_SECOND, now, now, Misfire.SKIP, HOUR);
        assertThat(plan.jobs()).hasSize(30);
        assertThat(plan.jobs().get(0)).isEqualTo(new Planned(now + 1_000, now + 1_000));
        assertThat(plan.jobs().get(29)).isEqualTo(new Planned(now + 30_000, now + 30_000));
        assertThat(plan.cursorMs()).isEqualTo(now + 30_000);
        assertThat(plan.nextCheckMs()).isEqualTo(now + 1_000); // 31 s is due within the lookahead then
        // the next pass goes on from the cursor: nothing twice
        Plan again = planner.plan(EVERY_SECOND, plan.cursorMs(), now + 1_000, Misfire.SKIP, HOUR);
        assertThat(again.jobs()).containsExactly(new Planned(now + 31_000, now + 31_000));
    }

    @Test
    void theNextOccurrenceIsSubmittedEvenBeyondTheLookaheadAndOnlyOnce() {
        Series daily = new Series(new IntervalRecurrence(0, 24 * HOUR), null, null);
        long now = 10 * HOUR;
        Plan plan = planner.plan(daily, now, now, Misfire.FIRE_ONCE, HOUR);
        assertThat(plan.jobs()).containsExactly(new Planned(24 * HOUR, 24 * HOUR));
        // nothing to do until the occurrence after it comes within the lookahead
        assertThat(plan.nextCheckMs()).isEqualTo(48 * HOUR - 30_000);
        assertThat(planner.plan(daily, plan.cursorMs(), now + 5_000, Misfire.FIRE_ONCE, HOUR)
                        .jobs())
                .isEmpty();
    }

    @Test
    void occurrencesLateByLessThanTheGraceAreNotMisfiresWhateverThePolicy() {
        long now = 10 * HOUR;
        Plan plan = planner.plan(EVERY_SECOND, now - 20_000, now, Misfire.SKIP, HOUR);
        // the 20 missed by up to 19 s fire at their own (past) times, then 30 s ahead
        assertThat(plan.jobs()).hasSize(50);
        assertThat(plan.jobs().get(0)).isEqualTo(new Planned(now - 19_000, now - 19_000));
    }

    @Test
    void misfiresAreOneJobNowNoneOrEachOfTheNewestThousand() {
        long now = 10 * HOUR;
        long cursor = now - 5 * 60_000; // a five-minute outage: 240 occurrences older than the grace
        Plan once = planner.plan(EVERY_SECOND, cursor, now, Misfire.FIRE_ONCE, HOUR);
        assertThat(once.jobs().get(0)).isEqualTo(new Planned(now - 61_000, now)); // the newest missed
        assertThat(once.jobs()).hasSize(1 + 61 + 30); // then now-60 s … now at once, and 30 s ahead

        Plan skip = planner.plan(EVERY_SECOND, cursor, now, Misfire.SKIP, HOUR);
        assertThat(skip.jobs()).hasSize(61 + 30);
        assertThat(skip.jobs().get(0).occurrenceMs()).isEqualTo(now - 60_000);

        Plan all = planner.plan(EVERY_SECOND, cursor, now, Misfire.FIRE_ALL, HOUR);
        List<Planned> missed = all.jobs().stream()
                .filter(j -> j.fireAtMs() == now && j.occurrenceMs() < now - 60_000)
                .toList();
        assertThat(missed).hasSize(239); // now-299 s … now-61 s
        assertThat(missed.get(0).occurrenceMs()).isEqualTo(now - 299_000);

        Plan longOutage = planner.plan(EVERY_SECOND, now - 5 * HOUR, now, Misfire.FIRE_ALL, HOUR);
        List<Planned> caughtUp = longOutage.jobs().stream()
                .filter(j -> j.occurrenceMs() < now - 60_000)
                .toList();
        assertThat(caughtUp).hasSize(MaterializationPlanner.MAX_FIRE_ALL);
        assertThat(caughtUp.get(caughtUp.size() - 1).occurrenceMs()).isEqualTo(now - 61_000);
    }

    @Test
    void missesOlderThanTheCatchUpWindowAreGone() {
        long now = 10 * HOUR;
        Plan plan = planner.plan(EVERY_SECOND, now - 5 * HOUR, now, Misfire.FIRE_ONCE, 2 * 60_000);
        // the window reaches back 120 s: the newest miss (61 s ago) is the one job now
        assertThat(plan.jobs().get(0)).isEqualTo(new Planned(now - 61_000, now));
        // a window shorter than the grace: nothing is a misfire, what is late by less than the grace
        // is submitted at its own time
        Plan tooOld = planner.plan(EVERY_SECOND, now - 5 * HOUR, now, Misfire.FIRE_ONCE, 30_000);
        assertThat(tooOld.jobs().get(0)).isEqualTo(new Planned(now - 60_000, now - 60_000));
    }

    @Test
    void theEndOfTheSeriesEndsThePlanning() {
        Series ends = new Series(new IntervalRecurrence(0, 1_000), null, 5_000L);
        Plan plan = planner.plan(ends, 0, 0, Misfire.FIRE_ONCE, HOUR);
        assertThat(plan.jobs())
                .extracting(Planned::occurrenceMs)
                .containsExactly(1_000L, 2_000L, 3_000L, 4_000L, 5_000L);
        assertThat(plan.nextCheckMs()).isNull();
    }

    @Test
    void aSeriesStartsAtItsStart() {
        Series later = new Series(new IntervalRecurrence(0, 1_000), 100_000L, null);
        assertThat(later.next(0, 2)).containsExactly(100_000L, 101_000L);
        assertThat(later.firstAfter(100_000)).hasValue(101_000);
    }

    @Test
    void anOutageOfHoursIsOneFireOnceJobOrTheNewestThousandNotOnePerStepOfAWalk() {
        long now = 30 * HOUR;
        long cursor = now - 6 * HOUR; // 21,540 misses of an every-second schedule, a 1-day window
        Plan once = planner.plan(EVERY_SECOND, cursor, now, Misfire.FIRE_ONCE, 24 * HOUR);
        assertThat(once.jobs().stream().filter(j -> j.occurrenceMs() < now - 60_000))
                .containsExactly(new Planned(now - 61_000, now));
        Plan all = planner.plan(EVERY_SECOND, cursor, now, Misfire.FIRE_ALL, 24 * HOUR);
        List<Long> caughtUp = all.jobs().stream()
                .filter(j -> j.occurrenceMs() < now - 60_000)
                .map(Planned::occurrenceMs)
                .toList();
        assertThat(caughtUp).hasSize(1_000);
        assertThat(caughtUp.get(0)).isEqualTo(now - 1_060_000);
        assertThat(caughtUp.get(999)).isEqualTo(now - 61_000);
        // a daily schedule a month behind: the one missed yesterday, found without a walk of the month
        Series daily = new Series(new IntervalRecurrence(0, 24 * HOUR), null, null);
        Plan dailyOnce = planner.plan(daily, 0, 30 * 24 * HOUR + HOUR, Misfire.FIRE_ONCE, 40L * 24 * HOUR);
        assertThat(dailyOnce.jobs().get(0)).isEqualTo(new Planned(30 * 24 * HOUR, 30 * 24 * HOUR + HOUR));
    }

    @Test
    void aCatchUpWindowShorterThanTheGraceStillSubmitsWhatIsLateByLessThanTheGrace() {
        long now = 10 * HOUR;
        Plan plan = planner.plan(EVERY_SECOND, now - 50_000, now, Misfire.SKIP, 10_000);
        assertThat(plan.jobs().get(0)).isEqualTo(new Planned(now - 49_000, now - 49_000));
        assertThat(plan.jobs()).hasSize(49 + 1 + 30);
    }
}
