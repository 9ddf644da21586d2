package dev.hourglass.node.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.StallWatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Thousands of jobs due at the very same millisecond, and a few due just after them. The loader
 * pages by {@code (dueAt, id)}: a page full of one due time still moves it on, so the whole block
 * is in memory at once and the jobs after it are not held behind it. (Paging by the due time alone
 * stalled on such a page: the block came into memory one page per tick and the later jobs waited.)
 */
class SameMillisecondIT {
    NodeFixture f;

    @AfterEach
    void stop() {
        if (f != null) {
            f.close();
        }
    }

    /**
     * The block's service: a thousand deliveries at once, and a timeout of 10 s rather than the 30 s
     * default. The receiver answers at once, but the JDK HTTP server it runs on, with a thousand
     * connections open, now and then keeps a request it has read without ever writing the answer
     * (the receiver has it, the node never hears back): the attempt ends only at its timeout, then
     * the next is sent (see {@link #assertNoExtraDeliveries}). Seen in about two runs of five, at
     * the 30 s default, as a drain half a minute longer than the others, all of it idle waiting.
     * Ten seconds stays far beyond the time an answer takes here, with a thousand requests in flight
     * on two cores, so that a slow answer is still no timeout.
     */
    static final String BLOCK_SERVICE = "\"maxInFlight\":1000,\"timeoutMs\":10000";

    private void start(int claimBatch) throws Exception {
        f = new NodeFixture(c -> {
            c.engine.claimBatch = claimBatch;
            c.engine.loadIntervalMs = 1_000; // the default tick: a stalled loader shows
            c.dubbo.enabled = false; // HTTP services only
        });
    }

    /** Submits {@code count} jobs due at {@code fireAt} through the batch endpoint; returns their ids. */
    private List<String> block(String service, int count, long fireAt) {
        List<String> ids = new ArrayList<>(count);
        for (int done = 0; done < count; done += 1_000) {
            StringBuilder body = new StringBuilder("{\"jobs\":[");
            for (int i = 0; i < Math.min(1_000, count - done); i++) {
                body.append(i == 0 ? "" : ",")
                        .append("{\"service\":\"")
                        .append(service)
                        .append("\",\"fireAt\":")
                        .append(fireAt)
                        .append('}');
            }
            ApiClient.Answer a =
                    f.app.post("/api/v1/jobs/batch", body.append("]}").toString());
            assertThat(a.status()).as(a.text()).isEqualTo(200);
            a.json().get("results").forEach(r -> ids.add(r.get("job").get("id").asText()));
        }
        return ids;
    }

    @Test
    void jobsDueJustAfterALargeSameMillisecondBlockAreNotHeldBehindIt() throws Exception {
        start(10); // pages of 40 rows: a block of 2,000 fills fifty of them
        String service = f.httpService(BLOCK_SERVICE);
        long blockAt = System.currentTimeMillis() + leadForBlockOf(2_000, 4_000);
        List<String> blockIds = block(service, 2_000, blockAt);
        List<JsonNode> markers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            markers.add(f.submit(service, Math.max(0, blockAt + 2_000 - System.currentTimeMillis()), ""));
        }
        StallWatch stalls = new StallWatch();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> f.receiver.countsByJob().keySet().containsAll(blockIds));
        await().atMost(Duration.ofSeconds(30)).until(() -> markers.stream()
                .allMatch(m -> !f.receiver.receivedFor(m.get("id").asText()).isEmpty()));
        long lastOfBlock = lastFirstArrival(blockIds);
        long worst = 0;
        for (JsonNode m : markers) {
            Received r = f.receiver.receivedFor(m.get("id").asText()).get(0);
            worst = Math.max(worst, r.at() - NodeFixture.epochMs(m.get("fireAt")));
        }
        stalls.close();
        System.out.printf(
                "SAME-MS (small pages): 2000 jobs at one ms drained in %d ms, markers 2 s later at most %d ms late, %s%n",
                lastOfBlock - blockAt, worst, stalls);
        // claims of 10 rows drain the block at the machine's pace; the markers may wait for that
        // (they come after it in fire order), never for a loader stuck in the block (tens of seconds)
        assertThat(worst)
                .as("the jobs due after the block were held behind it; %s", stalls)
                .isLessThan(Math.max(0, lastOfBlock - blockAt - 2_000) + 500 + stalls.longestStallMs());
        assertNoExtraDeliveries(blockIds.size() + markers.size());
    }

    /**
     * How far ahead of now to put a block of {@code jobs} jobs so that all of it is stored before
     * its time, measured instead of guessed: a fixed lead sized for the slowest machine seen was
     * idle time on every other run. Two batches of 1,000 jobs of another service, due an hour
     * later (outside the load window: never loaded nor fired during the test, never at the
     * receiver), are timed; the second, on a node already warmed by the first, gives the pace the
     * block's batches go at. The lead is twice the block's time at that pace plus 2 s, and at
     * most {@code maxMs}, the fixed lead this replaces. (Three times plus 3 s left a 50,000-job
     * block stored 7 s ahead of its time in every run: idle seconds of the suite.)
     */
    private long leadForBlockOf(int jobs, long maxMs) {
        String elsewhere = f.httpService("");
        long hourAhead = System.currentTimeMillis() + 3_600_000;
        block(elsewhere, 1_000, hourAhead);
        long started = System.nanoTime();
        block(elsewhere, 1_000, hourAhead);
        long perBatchMs = Math.max(1, (System.nanoTime() - started) / 1_000_000);
        long blockMs = perBatchMs * ((jobs + 999) / 1_000);
        long lead = Math.min(maxMs, 2 * blockMs + 2_000);
        System.out.printf("SAME-MS: a batch of 1000 took %d ms: %d jobs get a %d ms lead%n", perBatchMs, jobs, lead);
        return lead;
    }

    /** When the last of these jobs first arrived. */
    private long lastFirstArrival(List<String> ids) {
        Map<String, Long> firstArrival = new HashMap<>();
        for (Received r : f.receiver.received()) {
            firstArrival.merge(r.jobId(), r.at(), Math::min);
        }
        return ids.stream().mapToLong(firstArrival::get).max().orElseThrow();
    }

    /**
     * Every job arrived, no (job, attempt) twice, and a job arrived again only after the node saw
     * its earlier attempt fail. The receiver answers 200 at once, but the JDK's HTTP server it runs
     * on now and then closes a connection without writing the answer when a thousand are open:
     * the node then has no answer (an ERROR, "EOF"; a TIMEOUT when the request is kept unanswered,
     * see {@link #BLOCK_SERVICE}), and sending the next attempt is the promise
     * (at least once, a higher attempt number), not a duplicate. The failure names the jobs.
     */
    private void assertNoExtraDeliveries(int jobs) {
        Map<String, List<Received>> byJob = new HashMap<>();
        for (Received r : f.receiver.received()) {
            byJob.computeIfAbsent(r.jobId(), k -> new ArrayList<>()).add(r);
        }
        List<String> duplicates = new ArrayList<>();
        int retriedAfterAFailure = 0;
        for (Map.Entry<String, List<Received>> e : byJob.entrySet()) {
            List<Received> arrivals = e.getValue();
            if (arrivals.size() == 1) {
                continue;
            }
            Map<Integer, String> outcomeOf = new HashMap<>();
            f.executions(e.getKey())
                    .forEach(x -> outcomeOf.put(
                            x.get("attempt").asInt(),
                            x.hasNonNull("outcome") ? x.get("outcome").asText() : "OPEN"));
            List<Integer> attempts =
                    arrivals.stream().map(Received::attempt).sorted().toList();
            boolean sameAttemptTwice = attempts.stream().distinct().count() < attempts.size();
            // every arrival but the last was followed by another because its attempt failed
            boolean earlierAttemptsFailed = attempts.subList(0, attempts.size() - 1).stream()
                    .allMatch(a -> outcomeOf.containsKey(a)
                            && !outcomeOf.get(a).equals("SUCCESS")
                            && !outcomeOf.get(a).equals("OPEN"));
            if (sameAttemptTwice || !earlierAttemptsFailed) {
                duplicates.add(e.getKey() + " arrivals " + attempts + " executions " + outcomeOf);
            } else {
                retriedAfterAFailure++;
            }
        }
        System.out.printf(
                "SAME-MS: %d jobs sent again after their attempt failed at the receiver%n", retriedAfterAFailure);
        assertThat(duplicates)
                .as("jobs delivered again without a failed attempt before")
                .isEmpty();
        assertThat(byJob).as("jobs delivered").hasSize(jobs);
    }

    /** The measurement: 50,000 jobs at one millisecond, then jobs due one second later. */
    @Test
    void fiftyThousandJobsAtOneMillisecondDrainAndTheNextJobsFireOnTime() throws Exception {
        start(500);
        String service = f.httpService(BLOCK_SERVICE);
        // the lead covers submitting the block on this machine as loaded as it is now (it took over
        // 15 s once in CI, under 2 s on a quiet 2-core machine): see leadForBlockOf
        long blockAt = System.currentTimeMillis() + leadForBlockOf(50_000, 25_000);
        List<String> blockIds = block(service, 50_000, blockAt);
        long storedAheadMs = blockAt - System.currentTimeMillis();
        List<JsonNode> markers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            // never a negative delay (400): a marker whose time passed fires now, judged by its own fire time
            markers.add(f.submit(service, Math.max(0, blockAt + 1_000 + i * 10L - System.currentTimeMillis()), ""));
        }
        // the map of every delivery only once there can be one of each block job: built ten times a
        // second over tens of thousands of them, it took CPU from the node draining the block
        await().atMost(Duration.ofSeconds(120))
                .until(() -> f.receiver.receivedCount() >= blockIds.size()
                        && f.receiver.countsByJob().keySet().containsAll(blockIds));
        long lastOfBlock = lastFirstArrival(blockIds);
        await().atMost(Duration.ofSeconds(30)).until(() -> markers.stream()
                .allMatch(m -> !f.receiver.receivedFor(m.get("id").asText()).isEmpty()));
        long worstMarker = 0;
        for (JsonNode m : markers) {
            Received r = f.receiver.receivedFor(m.get("id").asText()).get(0);
            worstMarker = Math.max(worstMarker, r.at() - NodeFixture.epochMs(m.get("fireAt")));
        }
        double drainSeconds = Math.max(1, lastOfBlock - blockAt) / 1000.0;
        System.out.printf(
                "SAME-MS: 50000 jobs due at one ms (stored %d ms ahead of their time) drained in %.2f s (%.0f jobs/s);"
                        + " markers due 1 s later at most %d ms late%n",
                storedAheadMs, drainSeconds, 50_000 / drainSeconds, worstMarker);
        assertNoExtraDeliveries(50_000 + markers.size());
        // the markers come after the block in fire order; they may wait for the block to drain,
        // never for a loader that cannot get past it
        assertThat(worstMarker).isLessThan(Math.max(0, lastOfBlock - blockAt - 1_000) + 2_000);
    }
}
