package dev.hourglass.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
    void readsTheJobIdOfASubmitAnswer() {
        assertEquals("4711", PullBench.idOf("{\"id\":\"4711\",\"app\":\"a\",\"payload\":{\"id\":\"not this\"}}"));
    }
}
