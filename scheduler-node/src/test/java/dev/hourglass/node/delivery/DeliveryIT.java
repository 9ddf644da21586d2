package dev.hourglass.node.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.api.CallbackSignature;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsPaired;
import dev.hourglass.node.testing.StallWatch;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Submit -> fire -> HTTP callback, end to end on MariaDB and a real HTTP peer on 127.0.0.1. */
@RunsPaired // waits on receivers and retries; its bounds are seconds, or arithmetic on stored times
class DeliveryIT {
    static NodeFixture f;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture(c -> c.dubbo.enabled = false); // HTTP callbacks only
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @BeforeEach
    void answerOk() {
        f.receiver.respond(r -> Reply.ok());
    }

    /**
     * Lateness is bounded at a second per job, plus whatever the JVM could not run at all meanwhile
     * ({@link StallWatch}): the promise is "on time with the cluster not overloaded", and a CI run
     * once saw one job of 40 late by 1,043 ms (and, in the same minutes, a 1.5 s timeout in
     * ConsumerAckIT elapse between two HTTP requests). The failure message shows both.
     */
    @Test
    void firesEveryJobOnTimeNeverEarlyWithAValidSignature() {
        String service = f.httpService("");
        String secret = f.app.get("/api/v1/services/" + service)
                .json()
                .get("signingSecret")
                .asText();
        List<JsonNode> jobs = new ArrayList<>();
        try (StallWatch stalls = new StallWatch()) {
            for (int i = 0; i < 40; i++) {
                jobs.add(f.submit(service, 800 + i * 25L, "\"attributes\":{\"k\":\"v" + i + "\"}"));
            }
            // the receiver's own record first: polling 40 jobs' states over HTTP while they fire
            // would load the node the test measures
            await().atMost(Duration.ofSeconds(15)).until(() -> jobs.stream()
                    .allMatch(j -> f.receiver.receivedFor(j.get("id").asText()).size() == 1));
            List<String> late = new ArrayList<>();
            long bound = 1_000 + stalls.longestStallMs();
            for (JsonNode job : jobs) {
                String id = job.get("id").asText();
                Received r = f.receiver.receivedFor(id).get(0);
                long fireAt = NodeFixture.epochMs(job.get("fireAt"));
                assertThat(r.at()).as("delivered no earlier than the fire time").isGreaterThanOrEqualTo(fireAt);
                if (r.at() - fireAt >= bound) {
                    late.add(
                            id + ": received " + (r.at() - fireAt) + " ms late, the node's record " + f.executions(id));
                }
            }
            assertThat(late)
                    .as("jobs delivered %d ms or more late; %s", bound, stalls)
                    .isEmpty();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> jobs.stream()
                .allMatch(j -> "FINISHED".equals(f.state(j.get("id").asText()))));
        for (JsonNode job : jobs) {
            String id = job.get("id").asText();
            Received r = f.receiver.receivedFor(id).get(0);
            assertThat(f.receiver.receivedFor(id)).hasSize(1);
            assertThat(r.attempt()).isEqualTo(1);
            assertThat(CallbackSignature.verify(
                            secret,
                            r.signature(),
                            r.body().getBytes(StandardCharsets.UTF_8),
                            System.currentTimeMillis(),
                            300_000))
                    .isTrue();
            assertThat(r.body()).contains("\"payload\":{\"n\":1}").contains("\"jobId\":\"" + id + "\"");
            JsonNode executions = f.executions(id);
            assertThat(executions).hasSize(1);
            assertThat(executions.get(0).get("outcome").asText()).isEqualTo("SUCCESS");
            assertThat(executions.get(0).get("latenessMs").asLong())
                    .isBetween(0L, r.at() - NodeFixture.epochMs(job.get("fireAt")));
        }
    }

    /**
     * A receiver that is down fails 60 jobs due at the same moment: their retries are spread over
     * the backoff's jitter ([5,000, 6,000] ms after each attempt ended, docs/api.md) instead of all
     * coming back at the same millisecond, and none is due sooner than the backoff.
     */
    @Test
    void jobsThatFailedTogetherAreRetriedSpreadOverTheJitterNeverBeforeTheBackoff() {
        String service = f.httpService("\"backoff\":{\"initialMs\":5000,\"multiplier\":1.0,\"maxMs\":5000}");
        f.receiver.respond(r -> Reply.status(503));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            ids.add(f.submit(service, 500, "").get("id").asText());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream()
                .allMatch(id ->
                        f.executions(id).size() == 1 && f.executions(id).get(0).hasNonNull("finishedAt")));
        List<Long> waits = new ArrayList<>();
        for (String id : ids) {
            JsonNode job = f.job(id);
            long ended = NodeFixture.epochMs(f.executions(id).get(0).get("finishedAt"));
            if ("DELAYED".equals(job.get("state").asText())) {
                waits.add(NodeFixture.epochMs(job.get("fireAt")) - ended);
            }
        }
        assertThat(waits).as("jobs waiting for their retry").hasSizeGreaterThan(50);
        assertThat(waits).allSatisfy(w -> assertThat(w).isBetween(5_000L, 6_000L));
        long spread = waits.stream().mapToLong(Long::longValue).max().orElseThrow()
                - waits.stream().mapToLong(Long::longValue).min().orElseThrow();
        assertThat(spread).as("retry waits %s spread over the jitter", waits).isGreaterThan(400);
        assertThat(waits.stream().distinct().count()).as("distinct waits").isGreaterThan(40);
    }

    @Test
    void retriesWithBackoffThenFailsIntoTheBacklog() {
        String service =
                f.httpService("\"maxAttempts\":3,\"backoff\":{\"initialMs\":300,\"multiplier\":2.0,\"maxMs\":10000}");
        f.receiver.respond(r -> Reply.status(500));
        String id = f.submit(service, 0, "").get("id").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> "FAILED".equals(f.state(id)));
        List<Received> got = f.receiver.receivedFor(id);
        assertThat(got).extracting(Received::attempt).containsExactly(1, 2, 3);
        assertThat(got.get(1).at() - got.get(0).at()).as("first backoff").isGreaterThanOrEqualTo(300);
        assertThat(got.get(2).at() - got.get(1).at())
                .as("second backoff, doubled")
                .isGreaterThanOrEqualTo(600);
        JsonNode executions = f.executions(id);
        assertThat(executions).extracting(e -> e.get("outcome").asText()).containsExactly("RETRY", "RETRY", "RETRY");
        JsonNode job = f.job(id);
        assertThat(job.get("attempts").asInt()).isEqualTo(3);
        assertThat(job.get("lastError").asText()).contains("500");
        // in the backlog: the failed-state search finds it
        JsonNode failed =
                f.app.get("/api/v1/jobs?state=FAILED&service=" + service).json().get("items");
        assertThat(failed).extracting(j -> j.get("id").asText()).containsExactly(id);
    }

    @Test
    void aCallbackThatHangsPastTheTimeoutIsRetried() {
        // a timeout that attempt 2's plain answer meets even on a machine that stalls a second
        String service = f.httpService("\"timeoutMs\":2000,\"backoff\":{\"initialMs\":100}");
        f.receiver.respond(r -> r.attempt() == 1 ? new Reply(200, "", Map.of(), 6_000) : Reply.ok());
        String id = f.submit(service, 0, "").get("id").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> "FINISHED".equals(f.state(id)));
        assertThat(f.executions(id)).extracting(e -> e.get("outcome").asText()).containsExactly("TIMEOUT", "SUCCESS");
    }

    @Test
    void answersOfTheReceiverAreHonoured() {
        String service = f.httpService("\"maxAttempts\":5,\"backoff\":{\"initialMs\":100}");
        f.receiver.respond(r -> {
            String body = r.body();
            if (body.contains("\"case\":\"retry-body\"")) {
                return r.attempt() == 1
                        ? Reply.json("{\"status\":\"RETRY\",\"retryAfterMs\":700,\"message\":\"busy\"}")
                        : Reply.ok();
            }
            if (body.contains("\"case\":\"fail-body\"")) {
                return Reply.json("{\"status\":\"FAIL\",\"message\":\"no such order\"}");
            }
            if (body.contains("\"case\":\"gone\"")) {
                return Reply.status(410);
            }
            if (body.contains("\"case\":\"throttled\"")) {
                return r.attempt() == 1 ? new Reply(429, "", Map.of("Retry-After", "1"), 0) : Reply.ok();
            }
            return Reply.json("{\"status\":\"SUCCESS\"}");
        });
        String retry = submitCase(service, "retry-body");
        String fail = submitCase(service, "fail-body");
        String gone = submitCase(service, "gone");
        String throttled = submitCase(service, "throttled");
        String success = submitCase(service, "success-body");
        await().atMost(Duration.ofSeconds(10)).until(() -> List.of(retry, fail, gone, throttled, success).stream()
                .map(f::state)
                .allMatch(s -> s.equals("FINISHED") || s.equals("FAILED")));
        assertThat(f.state(retry)).isEqualTo("FINISHED");
        assertThat(f.executions(retry))
                .extracting(e -> e.get("outcome").asText())
                .containsExactly("RETRY", "SUCCESS");
        List<Received> r = f.receiver.receivedFor(retry);
        assertThat(r.get(1).at() - r.get(0).at()).as("retryAfterMs of the body").isGreaterThanOrEqualTo(700);
        assertThat(f.state(fail)).isEqualTo("FAILED");
        assertThat(f.executions(fail))
                .extracting(e -> e.get("outcome").asText())
                .containsExactly("FAIL");
        assertThat(f.job(fail).get("lastError").asText()).isEqualTo("no such order");
        assertThat(f.state(gone)).isEqualTo("FAILED");
        assertThat(f.executions(gone))
                .extracting(e -> e.get("outcome").asText())
                .containsExactly("FAIL");
        assertThat(f.state(throttled)).isEqualTo("FINISHED");
        List<Received> t = f.receiver.receivedFor(throttled);
        assertThat(t.get(1).at() - t.get(0).at()).as("Retry-After: 1").isGreaterThanOrEqualTo(1_000);
        assertThat(f.state(success)).isEqualTo("FINISHED");
        assertThat(f.executions(success)).hasSize(1);
    }

    /**
     * A receiver's retry hint beyond the 30-day maximum is clamped, not wrapped around: the job
     * waits 30 days, shows a normal ISO fire time, and its execution says the hint was clamped.
     */
    @Test
    void aReceiversHugeRetryHintIsClampedToThirtyDays() {
        long thirtyDays = Duration.ofDays(30).toMillis();
        String service = f.httpService("\"maxAttempts\":5,\"backoff\":{\"initialMs\":100}");
        f.receiver.respond(r -> {
            if (r.attempt() > 1) {
                return Reply.ok();
            }
            if (r.body().contains("\"case\":\"retry-body\"")) {
                return Reply.json("{\"status\":\"RETRY\",\"retryAfterMs\":" + Long.MAX_VALUE + "}");
            }
            if (r.body().contains("\"case\":\"retry-body-beyond-long\"")) {
                return Reply.json("{\"status\":\"RETRY\",\"retryAfterMs\":99999999999999999999}");
            }
            return new Reply(429, "", Map.of("Retry-After", Long.toString(Long.MAX_VALUE)), 0);
        });
        List<String> ids = List.of(
                submitCase(service, "retry-body"),
                submitCase(service, "retry-body-beyond-long"),
                submitCase(service, "throttled"));
        long before = System.currentTimeMillis();
        await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream()
                .allMatch(id -> f.executions(id).size() == 1 && "DELAYED".equals(f.state(id))));
        long after = System.currentTimeMillis();
        for (String id : ids) {
            JsonNode job = f.job(id);
            assertThat(job.get("fireAt").asText()).as("a normal ISO time").matches("20\\d\\d-.*Z");
            assertThat(NodeFixture.epochMs(job.get("fireAt")))
                    .as("retried 30 days later: " + job)
                    .isBetween(before + thirtyDays - 10_000, after + thirtyDays);
            JsonNode execution = f.executions(id).get(0);
            assertThat(execution.get("outcome").asText()).isEqualTo("RETRY");
            assertThat(execution.get("message").asText())
                    .as("says it was clamped")
                    .contains("30 days");
            assertThat(f.receiver.receivedFor(id)).as("no early second attempt").hasSize(1);
            f.app.delete("/api/v1/jobs/" + id);
        }
    }

    private static String submitCase(String service, String name) {
        return f.app.post(
                        "/api/v1/jobs",
                        "{\"service\":\"" + service + "\",\"delayMs\":0,\"payload\":{\"case\":\"" + name + "\"}}")
                .json()
                .get("id")
                .asText();
    }

    @Test
    void aServiceNeverGetsMoreThanItsMaxInFlightDeliveriesAtOnce() {
        String service = f.httpService("\"maxInFlight\":3");
        f.receiver.respond(r -> new Reply(200, "", Map.of(), 300));
        f.receiver.resetConcurrency();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ids.add(f.submit(service, 0, "").get("id").asText());
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> ids.stream().allMatch(id -> "FINISHED".equals(f.state(id))));
        assertThat(f.receiver.maxConcurrent()).as("concurrent deliveries").isEqualTo(3);
    }

    @Test
    void cancelStopsADelayedJobEvenOneAlreadyInMemory() {
        String service = f.httpService("");
        String far = f.submit(service, 3_600_000, "").get("id").asText();
        // inside the loaded window, and seconds away: the test's requests come first, even on a
        // machine that stalls for one
        String near = f.submit(service, 4_000, "").get("id").asText();
        assertThat(f.app.delete("/api/v1/jobs/" + far).json().get("state").asText())
                .isEqualTo("CANCELED");
        assertThat(f.app.delete("/api/v1/jobs/" + near).json().get("state").asText())
                .isEqualTo("CANCELED");
        assertThat(f.app.delete("/api/v1/jobs/" + near).status()).isEqualTo(409);
        String witness = f.submit(service, 4_300, "").get("id").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> "FINISHED".equals(f.state(witness)));
        assertThat(f.receiver.receivedFor(near)).isEmpty();
        assertThat(f.receiver.receivedFor(far)).isEmpty();
        assertThat(f.executions(near)).isEmpty();
    }

    @Test
    void aRescheduledJobFiresAtTheNewTimeOnlyEvenWhenAlreadyInMemory() {
        String service = f.httpService("");
        String id = f.submit(service, 3_000, "").get("id").asText(); // in memory, and moved before it is due
        JsonNode moved = f.app.patch("/api/v1/jobs/" + id, "{\"delayMs\":5000,\"payload\":{\"moved\":true}}")
                .json();
        long newFireAt = NodeFixture.epochMs(moved.get("fireAt"));
        await().atMost(Duration.ofSeconds(10)).until(() -> "FINISHED".equals(f.state(id)));
        List<Received> got = f.receiver.receivedFor(id);
        assertThat(got).hasSize(1);
        assertThat(got.get(0).at()).isGreaterThanOrEqualTo(newFireAt);
        assertThat(got.get(0).body()).contains("\"moved\":true");
        // earlier, too: a job moved from far away to soon fires soon
        String far = f.submit(service, 3_600_000, "").get("id").asText();
        long soon = System.currentTimeMillis() + 800;
        assertThat(f.app.patch("/api/v1/jobs/" + far, "{\"fireAt\":" + soon + "}")
                        .status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(5)).until(() -> "FINISHED".equals(f.state(far)));
        assertThat(f.receiver.receivedFor(far).get(0).at()).isGreaterThanOrEqualTo(soon);
        assertThat(f.app.patch("/api/v1/jobs/" + far, "{\"delayMs\":1000}").status())
                .isEqualTo(409);
    }

    @Test
    void fireNowDeliversAFarJobAtOnce() {
        String service = f.httpService("");
        String id = f.submit(service, 3_600_000, "").get("id").asText();
        long before = System.currentTimeMillis();
        try (StallWatch stalls = new StallWatch()) {
            assertThat(f.app.post("/api/v1/jobs/" + id + "/fire", "").status()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(5)).until(() -> "FINISHED".equals(f.state(id)));
            assertThat(f.receiver.receivedFor(id).get(0).at() - before)
                    .as("%s", stalls)
                    .isLessThan(2_000 + stalls.longestStallMs());
        }
    }

    @Test
    void manualRetryGivesAFailedJobAFreshBudgetWithRisingAttemptNumbers() {
        String service = f.httpService("\"maxAttempts\":2,\"backoff\":{\"initialMs\":100}");
        f.receiver.respond(r -> r.attempt() <= 2 ? Reply.status(500) : Reply.ok());
        String id = f.submit(service, 0, "").get("id").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> "FAILED".equals(f.state(id)));
        assertThat(f.app.post("/api/v1/jobs/" + id + "/retry", "{\"delayMs\":200}")
                        .json()
                        .get("state")
                        .asText())
                .isEqualTo("DELAYED");
        await().atMost(Duration.ofSeconds(10)).until(() -> "FINISHED".equals(f.state(id)));
        assertThat(f.receiver.receivedFor(id)).extracting(Received::attempt).containsExactly(1, 2, 3);
        assertThat(f.app.post("/api/v1/jobs/" + id + "/retry", "").status())
                .as("a FINISHED job")
                .isEqualTo(409);
    }

    @Test
    void aBizKeyIsIdempotentWhileLiveAndAfterTheJobEnded() {
        String service = f.httpService("");
        String body = "{\"service\":\"" + service + "\",\"delayMs\":300,\"bizKey\":\"order-42-close\"}";
        var first = f.app.post("/api/v1/jobs", body);
        var again = f.app.post("/api/v1/jobs", body);
        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(200);
        String id = first.json().get("id").asText();
        assertThat(again.json().get("id").asText()).isEqualTo(id);
        await().atMost(Duration.ofSeconds(5)).until(() -> "FINISHED".equals(f.state(id)));
        var afterEnd = f.app.post("/api/v1/jobs", body);
        assertThat(afterEnd.status()).isEqualTo(200);
        assertThat(afterEnd.json().get("id").asText()).isEqualTo(id);
        assertThat(afterEnd.json().get("state").asText()).isEqualTo("FINISHED");
        assertThat(f.receiver.receivedFor(id)).hasSize(1);
        var byKey = f.app.get("/api/v1/jobs?bizKey=order-42-close").json().get("items");
        assertThat(byKey).extracting(j -> j.get("id").asText()).containsExactly(id);
    }

    @Test
    void aBatchSubmitsTheGoodJobsAndReportsTheBadOnesInOrder() {
        String service = f.httpService("");
        String body = "{\"jobs\":[{\"service\":\"" + service + "\",\"delayMs\":100},"
                + "{\"service\":\"nope\",\"delayMs\":100},"
                + "{\"service\":\"" + service + "\",\"delayMs\":\"x\"},"
                + "{\"service\":\"" + service + "\",\"delayMs\":200,\"bizKey\":\"batch-1\"},"
                + "{\"service\":\"" + service + "\",\"delayMs\":200,\"bizKey\":\"batch-1\"}]}";
        var answer = f.app.post("/api/v1/jobs/batch", body);
        assertThat(answer.status()).isEqualTo(200);
        JsonNode results = answer.json().get("results");
        assertThat(results).hasSize(5);
        assertThat(results.get(0).has("job")).isTrue();
        assertThat(results.get(1).get("error").get("field").asText()).isEqualTo("service");
        assertThat(results.get(2).get("error").get("field").asText()).isEqualTo("delayMs");
        assertThat(results.get(3).get("job").get("id").asText())
                .isEqualTo(results.get(4).get("job").get("id").asText());
        String id = results.get(0).get("job").get("id").asText();
        await().atMost(Duration.ofSeconds(5)).until(() -> "FINISHED".equals(f.state(id)));
    }
}
