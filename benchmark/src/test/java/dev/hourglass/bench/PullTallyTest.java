package dev.hourglass.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PullTallyTest {
    @Test
    void countsAJobReservedTwiceOnceAsDuplicatedAndItsLatenessOnce() {
        PullTally tally = new PullTally();
        tally.reserved("1", 1_000, 1_007);
        tally.reserved("2", 1_000, 1_500);
        tally.reserved("1", 1_000, 61_007); // reserved again after its TTR

        JsonNode report = tally.report(new ObjectMapper(), true, false);
        assertEquals(1, report.get("duplicated").asLong());
        assertEquals(2, report.get("reservedJobs").asLong());
        assertEquals(3, report.get("reservations").asLong());
        assertEquals(500, report.get("latenessMs").get("max").asLong(), "the second reservation is not lateness");
        assertEquals(0, report.get("early").asLong());
    }

    @Test
    void countsAJobHeldBeforeItsFireTimeAsEarly() {
        PullTally tally = new PullTally();
        tally.reserved("1", 2_000, 1_990);
        tally.reserved("2", 2_000, 2_000);

        JsonNode report = tally.report(new ObjectMapper(), true, false);
        assertEquals(1, report.get("early").asLong());
        assertEquals(-10, report.get("mostEarlyMs").asLong());
    }

    @Test
    void missedAreTheSubmittedNeverReservedAndUnexpectedTheReverse() {
        PullTally tally = new PullTally();
        tally.reserved("1", 0, 0);
        tally.reserved("9", 0, 0);

        assertEquals(2, tally.missed(Set.of("1", "2", "3")));
        assertEquals(1, tally.unexpected(Set.of("1", "2", "3")));
    }

    @Test
    void everyReservationIsAnsweredOnlyOnceItsResultIsFinishedRefusedOrLost() {
        PullTally tally = new PullTally();
        tally.reserved("1", 0, 0);
        tally.reserved("2", 0, 0);
        tally.reserved("3", 0, 0);
        tally.resultsCall(1, 1, 10);
        assertFalse(tally.allAnswered());

        tally.resultsFailed(1, "503");
        assertTrue(tally.allAnswered());
        assertEquals(1, tally.acknowledged());
    }

    @Test
    void splitsTheLatenessByWhetherTheJobWasReservedThroughTheNodeItWasSubmittedThrough() {
        String a = "http://127.0.0.1:18480";
        String b = "http://127.0.0.1:18481";
        PullTally tally = new PullTally();
        tally.reserved("1", 1_000, 1_004, a);
        tally.reserved("2", 1_000, 1_010, a);
        tally.reserved("3", 1_000, 1_150, b);
        tally.reserved("3", 1_000, 99_000, a); // again: neither its lateness nor its node counts
        tally.reserved("4", 1_000, 990, b); // early: 0 late, as in latenessMs
        tally.reserved("5", 1_000, 1_700, a); // not submitted in this run: in neither split

        JsonNode report = tally.report(new ObjectMapper(), true, false, Map.of("1", a, "2", a, "3", a, "4", b, "6", b));
        JsonNode same = report.get("latenessSameNodeMs");
        JsonNode other = report.get("latenessOtherNodeMs");
        assertEquals(3, same.get("count").asLong());
        assertEquals(1, other.get("count").asLong());
        assertEquals(4, same.get("p50").asLong(), "jobs 4 (0), 1 (4), 2 (10)");
        assertEquals(10, same.get("max").asLong());
        assertEquals(10, same.get("p999").asLong());
        assertEquals(150, other.get("p50").asLong());
        assertEquals(150, other.get("p99").asLong());
        assertEquals(150, other.get("max").asLong());
        assertEquals(700, report.get("latenessMs").get("max").asLong(), "the whole figure is unchanged");
        for (String field : new String[] {"p50", "p95", "p99", "p999", "max"}) {
            assertTrue(same.has(field), field);
            assertTrue(other.has(field), field);
        }
    }

    @Test
    void anEmptySplitHasCountZeroAndNullPercentiles() {
        String only = "http://127.0.0.1:18480";
        PullTally tally = new PullTally();
        tally.reserved("1", 1_000, 1_003, only);
        tally.reserved("2", 1_000, 1_005, only);

        JsonNode report = tally.report(new ObjectMapper(), true, false, Map.of("1", only, "2", only));
        assertEquals(2, report.get("latenessSameNodeMs").get("count").asLong());
        JsonNode other = report.get("latenessOtherNodeMs");
        assertEquals(0, other.get("count").asLong());
        for (String field : new String[] {"p50", "p95", "p99", "p999", "max"}) {
            assertTrue(other.get(field).isNull(), field);
        }
        assertEquals("n 0", PullBench.splitSummary(other));
        assertEquals("n 2 p50 3 p99 5 p99.9 5 max 5 ms", PullBench.splitSummary(report.get("latenessSameNodeMs")));
    }

    @Test
    void withoutTheSubmitNodesTheReportHasNoSplit() {
        PullTally tally = new PullTally();
        tally.reserved("1", 1_000, 1_003, "http://127.0.0.1:18480");

        JsonNode report = tally.report(new ObjectMapper(), true, false);
        assertFalse(report.has("latenessSameNodeMs"));
        assertFalse(report.has("latenessOtherNodeMs"));
    }

    @Test
    void readsTheJobIdOfASubmitAnswer() {
        assertEquals("4711", PullBench.idOf("{\"id\":\"4711\",\"app\":\"a\",\"payload\":{\"id\":\"not this\"}}"));
    }
}
