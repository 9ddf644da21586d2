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
     * default, so that an attempt that gets no answer (which {@link #assertEachJobArrivedOnce}
     * reports) costs the drain 10 s rather than 30. Ten seconds stays far beyond the time an
     * answer takes here, with a thousand requests in flight on two cores.
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
        assertThat(blockAt - System.currentTimeMillis())
                .as("the 2,000 jobs stored before their fire time (or the catch-up fires them, another path)")
                .isPositive();
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
        assertEachJobArrivedOnce(blockIds.size() + markers.size());
    }

    /**
     * How far ahead of now to put a block of {@code jobs} jobs so that all of it is stored before
     * its time, measured instead of guessed: a fixed lead sized for the slowest machine seen was
     * idle time on every other run. Two batches of 1,000 jobs of another service, due an hour
     * later (outside the load window: never loaded nor fired during the test, never at the
     * receiver), are timed; the second, on a node already warmed by the first, gives the pace the
     * block's batches go at. The lead is 1.5 times the block's time at that pace plus 2 s, and at
     * most {@code maxMs}, the fixed lead this replaces. (Three times plus 3 s left a 50,000-job
     * block stored 7 s ahead of its time in every run, twice plus 2 s 8.6 s ahead: the block's
     * batches go faster than the warm-up's, 3.2 s for a 4.9 s estimate; idle seconds of the suite.
     * Both tests assert their block was stored in time.)
     */
    private long leadForBlockOf(int jobs, long maxMs) {
        String elsewhere = f.httpService("");
        long hourAhead = System.currentTimeMillis() + 3_600_000;
        block(elsewhere, 1_000, hourAhead);
        long started = System.nanoTime();
        block(elsewhere, 1_000, hourAhead);
        long perBatchMs = Math.max(1, (System.nanoTime() - started) / 1_000_000);
        long blockMs = perBatchMs * ((jobs + 999) / 1_000);
        long lead = Math.min(maxMs, blockMs * 3 / 2 + 2_000);
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
     * Every job arrived exactly once. The receiver answers 200 at once and keeps its connections
     * (the build gives the JDK's HTTP server it runs on room for a thousand idle ones: by default it
     * closes all beyond 200 right after their answers, and the node then sent 56 to 115 jobs of the
     * 50,000 again after exchanges that failed in that race). A job sent twice is an attempt that
     * failed against a receiver that answered everything: the failure names the jobs and their
     * execution logs.
     */
    private void assertEachJobArrivedOnce(int jobs) {
        Map<String, List<Integer>> attemptsByJob = new HashMap<>();
        for (Received r : f.receiver.received()) {
            attemptsByJob.computeIfAbsent(r.jobId(), k -> new ArrayList<>()).add(r.attempt());
        }
        List<String> sentAgain = new ArrayList<>();
        attemptsByJob.forEach((job, attempts) -> {
            if (attempts.size() > 1 && sentAgain.size() < 20) {
                sentAgain.add(job + " arrivals " + attempts + " executions " + f.executions(job));
            }
        });
        assertThat(sentAgain)
                .as("jobs sent more than once to a receiver that answered 200 at once")
                .isEmpty();
        assertThat(attemptsByJob).as("jobs delivered").hasSize(jobs);
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
        // the premise: the block is stored before its time, so the loader meets it as one block (a
        // block stored late would be fired by the catch-up, another path)
        assertThat(storedAheadMs)
                .as("the 50,000 jobs stored before their fire time (lead measured by leadForBlockOf)")
                .isPositive();
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
        assertEachJobArrivedOnce(50_000 + markers.size());
        // the markers come after the block in fire order; they may wait for the block to drain,
        // never for a loader that cannot get past it
        assertThat(worstMarker).isLessThan(Math.max(0, lastOfBlock - blockAt - 1_000) + 2_000);
    }
}
