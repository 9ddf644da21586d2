package dev.hourglass.node.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.ApiClient.Answer;
import dev.hourglass.node.testing.NodeFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Pull consumers over HTTP, from outside, on each store we ship (docs/api.md, "Pull consumers"):
 * reserve, acknowledge, release, retry, fail, touch, the TTR, the queue view, the long poll, and
 * every bad input refused with its field and nothing changed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class PullContract {
    private static final AtomicInteger NAMES = new AtomicInteger();

    protected NodeFixture f;

    protected abstract NodeFixture start() throws Exception;

    /**
     * Alerts evaluated and backlog gauges read often, so the OVERDUE and gauge tests wait a
     * moment, not the default 10 s.
     */
    static void tune(dev.hourglass.node.config.NodeConfig c) {
        c.alerts.evaluateEveryMs = 300;
        c.metrics.backlogEveryMs = 300;
        c.dubbo.enabled = false; // consumers reserve over HTTP here (DubboPullIT: over Dubbo)
    }

    @BeforeAll
    void startNode() throws Exception {
        f = start();
    }

    @AfterAll
    void stopNode() {
        if (f != null) {
            f.close();
        }
    }

    /** A new PULL service of the fixture's app; {@code extra} is more JSON of its definition. */
    protected String pullService(String extra) {
        String name = "pull-" + NAMES.incrementAndGet();
        Answer a = f.app.put(
                "/api/v1/services/" + name, "{\"protocol\":\"PULL\"" + (extra.isEmpty() ? "" : "," + extra) + "}");
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        assertThat(a.json().get("ackMode").asText())
                .as("PULL is acknowledged by its consumers")
                .isEqualTo("CONSUMER");
        return name;
    }

    protected String submit(String service, long delayMs) {
        return f.submit(service, delayMs, "").get("id").asText();
    }

    protected Answer reserve(String body) {
        return f.app.post("/api/v1/reserve", body);
    }

    protected List<JsonNode> reserved(String body) {
        Answer a = reserve(body);
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        List<JsonNode> items = new ArrayList<>();
        a.json().get("items").forEach(items::add);
        return items;
    }

    protected Answer result(String id, int attempt, String status, String extra) {
        return f.app.post(
                "/api/v1/jobs/" + id + "/result",
                "{\"attempt\":" + attempt + ",\"status\":\"" + status + "\"" + extra + "}");
    }

    private static List<String> ids(List<JsonNode> items) {
        return items.stream().map(i -> i.get("id").asText()).toList();
    }

    @Test
    void aConsumerReservesTheOldestReadyJobsAndAcknowledgesThem() {
        String s = pullService("");
        String first = submit(s, 0);
        String second = submit(s, 0);
        String third = submit(s, 0);
        long before = System.currentTimeMillis();
        List<JsonNode> got = reserved("{\"services\":[\"" + s + "\"],\"max\":2,\"ttrMs\":60000}");
        assertThat(ids(got)).containsExactly(first, second);
        for (JsonNode r : got) {
            assertThat(r.get("attempt").asInt()).isEqualTo(1);
            assertThat(r.get("state").asText()).isEqualTo("RUNNING");
            assertThat(r.get("payload").get("n").asInt())
                    .as("the job as submitted")
                    .isEqualTo(1);
            long deadline = NodeFixture.epochMs(r.get("deadline"));
            assertThat(deadline).isBetween(before + 60_000 - 1_000, System.currentTimeMillis() + 60_000 + 1_000);
        }
        assertThat(result(first, 1, "SUCCESS", ",\"message\":\"done\"").status())
                .isEqualTo(200);
        assertThat(f.state(first)).isEqualTo("FINISHED");
        assertThat(f.executions(first))
                .extracting(e -> e.get("outcome").asText())
                .containsExactly("SUCCESS");
        assertThat(result(first, 1, "SUCCESS", "").status())
                .as("acknowledged already")
                .isEqualTo(409);
        assertThat(ids(reserved("{\"services\":[\"" + s + "\"],\"max\":5}"))).containsExactly(third);
        assertThat(reserved("{\"services\":[\"" + s + "\"],\"max\":5}"))
                .as("nothing left")
                .isEmpty();
    }

    @Test
    void servicesAreServedInTheOrderGiven() {
        String low = pullService("");
        String high = pullService("");
        String lowJob = submit(low, 0);
        String highJob = submit(high, 0);
        assertThat(ids(reserved("{\"services\":[\"" + high + "\",\"" + low + "\"],\"max\":1}")))
                .containsExactly(highJob);
        assertThat(ids(reserved("{\"services\":[\"" + high + "\",\"" + low + "\"],\"max\":1}")))
                .containsExactly(lowJob);
    }

    @Test
    void aJobIsNeverReservedBeforeItsFireTimeAndALongPollReceivesItWhenItIsDue() {
        String s = pullService("");
        String id = submit(s, 1_500);
        long fireAt = NodeFixture.epochMs(f.job(id).get("fireAt"));
        assertThat(reserved("{\"services\":[\"" + s + "\"]}")).as("not due").isEmpty();
        List<JsonNode> got = reserved("{\"services\":[\"" + s + "\"],\"waitMs\":10000}");
        long receivedAt = System.currentTimeMillis();
        assertThat(ids(got)).containsExactly(id);
        assertThat(receivedAt).as("never before its fire time").isGreaterThanOrEqualTo(fireAt);
        assertThat(receivedAt - fireAt)
                .as("woken when due, not at the end of the wait")
                .isLessThan(2_000);
    }

    @Test
    void aLongPollWithNothingDueAnswersEmptyWhenItsWaitRunsOut() {
        String s = pullService("");
        long start = System.currentTimeMillis();
        assertThat(reserved("{\"services\":[\"" + s + "\"],\"waitMs\":700}")).isEmpty();
        assertThat(System.currentTimeMillis() - start).isBetween(650L, 5_000L);
    }

    @Test
    void aLongPollIsWokenByAJobSubmittedMeanwhile() throws Exception {
        String s = pullService("");
        CompletableFuture<List<JsonNode>> waiting =
                CompletableFuture.supplyAsync(() -> reserved("{\"services\":[\"" + s + "\"],\"waitMs\":20000}"));
        Thread.sleep(300); // it waits
        assertThat(waiting).isNotDone();
        long submittedAt = System.currentTimeMillis();
        String id = submit(s, 0);
        List<JsonNode> got = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(ids(got)).containsExactly(id);
        assertThat(System.currentTimeMillis() - submittedAt).as("woken at once").isLessThan(2_000);
    }

    @Test
    void releaseReturnsTheJobWithoutUsingAnAttempt() {
        String s = pullService("\"maxAttempts\":2");
        String id = submit(s, 0);
        reserved("{\"services\":[\"" + s + "\"]}");
        assertThat(result(id, 1, "RELEASE", ",\"delayMs\":300").status()).isEqualTo(200);
        JsonNode job = f.job(id);
        assertThat(job.get("state").asText()).isEqualTo("DELAYED");
        assertThat(job.get("maxAttempts").asInt())
                .as("maxAttempts is what the service says")
                .isEqualTo(2);
        assertThat(reserved("{\"services\":[\"" + s + "\"]}"))
                .as("released with a delay")
                .isEmpty();
        List<JsonNode> again = reserved("{\"services\":[\"" + s + "\"],\"waitMs\":5000}");
        assertThat(again).extracting(r -> r.get("attempt").asInt()).containsExactly(2);
        // the budget of two counted attempts is whole: attempt 2's RETRY leaves one more
        assertThat(result(id, 2, "RETRY", "").status()).isEqualTo(200);
        assertThat(f.state(id)).isEqualTo("DELAYED");
        List<JsonNode> third = reserved("{\"services\":[\"" + s + "\"],\"waitMs\":5000}");
        assertThat(third).extracting(r -> r.get("attempt").asInt()).containsExactly(3);
        assertThat(result(id, 3, "SUCCESS", "").status()).isEqualTo(200);
        assertThat(f.executions(id))
                .extracting(e -> e.get("outcome").asText())
                .containsExactly("RELEASED", "RETRY", "SUCCESS");
    }

    /**
     * The backoff after a RELEASE is the step of the counted attempts: a released attempt moved it
     * one step on until 2026-11-28 (a consumer's stops made its jobs wait ever longer on a RETRY).
     */
    @Test
    void aRetryAfterAReleaseWaitsTheFirstBackoffStep() {
        String s = pullService("\"maxAttempts\":3,\"backoff\":{\"initialMs\":2000,\"multiplier\":4.0}");
        String id = submit(s, 0);
        reserved("{\"services\":[\"" + s + "\"]}");
        assertThat(result(id, 1, "RELEASE", "").status()).isEqualTo(200);
        assertThat(reserved("{\"services\":[\"" + s + "\"],\"waitMs\":5000}"))
                .extracting(r -> r.get("attempt").asInt())
                .containsExactly(2);
        long before = System.currentTimeMillis();
        assertThat(result(id, 2, "RETRY", "").status()).isEqualTo(200);
        long after = System.currentTimeMillis();
        long dueAt = NodeFixture.epochMs(f.job(id).get("fireAt"));
        // the first step is 2,000 ms plus up to a fifth; the second would be 8,000
        assertThat(dueAt).isBetween(before + 2_000, after + 2_400);
    }

    @Test
    void retryCountsAnAttemptFailEndsTheJobAndARetryOfTheFailedJobKicksItBack() {
        String s = pullService("\"maxAttempts\":3,\"backoff\":{\"initialMs\":100}");
        String id = submit(s, 0);
        reserved("{\"services\":[\"" + s + "\"]}");
        assertThat(result(id, 1, "RETRY", ",\"retryAfterMs\":200").status()).isEqualTo(200);
        assertThat(f.job(id).get("maxAttempts").asInt())
                .as("a RETRY uses the attempt")
                .isEqualTo(3);
        List<JsonNode> second = reserved("{\"services\":[\"" + s + "\"],\"waitMs\":5000}");
        assertThat(second).extracting(r -> r.get("attempt").asInt()).containsExactly(2);
        assertThat(result(id, 2, "FAIL", ",\"message\":\"bad order\"").status()).isEqualTo(200);
        assertThat(f.state(id)).isEqualTo("FAILED");
        assertThat(f.job(id).get("lastError").asText()).isEqualTo("bad order");
        // kick (beanstalkd) / respawn (lmstfy): the manual retry
        assertThat(f.app.post("/api/v1/jobs/" + id + "/retry", "").status()).isEqualTo(200);
        assertThat(reserved("{\"services\":[\"" + s + "\"],\"waitMs\":5000}")).hasSize(1);
    }

    /** beanstalkd's release with a delay: the consumer's retryAfterMs is the delay, even below the backoff. */
    @Test
    void aRetryWithRetryAfterMsIsDueAgainAfterExactlyThatDelay() {
        String s = pullService("\"backoff\":{\"initialMs\":5000}");
        String id = submit(s, 0);
        reserved("{\"services\":[\"" + s + "\"]}");
        long before = System.currentTimeMillis();
        assertThat(result(id, 1, "RETRY", ",\"retryAfterMs\":300").status()).isEqualTo(200);
        long after = System.currentTimeMillis();
        assertThat(NodeFixture.epochMs(f.job(id).get("fireAt"))).isBetween(before + 300, after + 300);
        List<JsonNode> again = reserved("{\"services\":[\"" + s + "\"],\"waitMs\":3000}");
        assertThat(again).extracting(r -> r.get("attempt").asInt()).containsExactly(2);
        // and later than the backoff when asked
        before = System.currentTimeMillis();
        assertThat(result(id, 2, "RETRY", ",\"retryAfterMs\":60000").status()).isEqualTo(200);
        after = System.currentTimeMillis();
        assertThat(NodeFixture.epochMs(f.job(id).get("fireAt"))).isBetween(before + 60_000, after + 60_000);
    }

    @Test
    void aLapsedTtrIsATimeoutAndTheNextAttemptGoesToTheNextConsumerWhileAStaleAckIsRefused() {
        String s = pullService("\"backoff\":{\"initialMs\":100}");
        String id = submit(s, 0);
        List<JsonNode> first = reserved("{\"services\":[\"" + s + "\"],\"ttrMs\":1000}");
        assertThat(first).hasSize(1);
        List<JsonNode> second = reserved("{\"services\":[\"" + s + "\"],\"ttrMs\":60000,\"waitMs\":10000}");
        assertThat(second).extracting(r -> r.get("attempt").asInt()).containsExactly(2);
        assertThat(second.get(0).get("id").asText()).isEqualTo(id);
        assertThat(NodeFixture.epochMs(second.get(0).get("deadline")))
                .as("the second reservation's own TTR")
                .isGreaterThan(System.currentTimeMillis() + 50_000);
        Answer stale = result(id, 1, "SUCCESS", "");
        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.errorField()).isEqualTo("attempt");
        assertThat(f.state(id)).as("the stale ack changed nothing").isEqualTo("RUNNING");
        assertThat(result(id, 2, "SUCCESS", "").status()).isEqualTo(200);
        assertThat(f.executions(id)).extracting(e -> e.get("outcome").asText()).containsExactly("TIMEOUT", "SUCCESS");
    }

    @Test
    void aTouchMovesTheDeadlineOfTheCurrentReservationOnly() throws Exception {
        String s = pullService("");
        String id = submit(s, 0);
        reserved("{\"services\":[\"" + s + "\"],\"ttrMs\":1000}");
        Answer touched = f.app.post("/api/v1/jobs/" + id + "/touch", "{\"attempt\":1,\"ttrMs\":10000}");
        assertThat(touched.status()).as(touched.text()).isEqualTo(200);
        assertThat(NodeFixture.epochMs(touched.json().get("deadline")))
                .isGreaterThan(System.currentTimeMillis() + 8_000);
        Thread.sleep(1_600); // past the first deadline
        assertThat(f.state(id)).as("the touched reservation holds").isEqualTo("RUNNING");
        refused(f.app.post("/api/v1/jobs/" + id + "/touch", "{\"attempt\":2,\"ttrMs\":10000}"), 409, "attempt");
        refused(f.app.post("/api/v1/jobs/" + id + "/touch", "{\"attempt\":0,\"ttrMs\":10000}"), 400, "attempt");
        refused(result(id, 0, "SUCCESS", ""), 400, "attempt");
        Answer bad = f.app.post("/api/v1/jobs/" + id + "/touch", "{\"attempt\":1,\"ttrMs\":999}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.errorField()).isEqualTo("ttrMs");
        assertThat(result(id, 1, "SUCCESS", "").status()).isEqualTo(200);
    }

    @Test
    void openReservationsStayWithinMaxInFlight() {
        String s = pullService("\"maxInFlight\":2");
        for (int i = 0; i < 3; i++) {
            submit(s, 0);
        }
        List<JsonNode> got = reserved("{\"services\":[\"" + s + "\"],\"max\":10}");
        assertThat(got).hasSize(2);
        assertThat(reserved("{\"services\":[\"" + s + "\"],\"max\":10}")).isEmpty();
        assertThat(result(got.get(0).get("id").asText(), 1, "SUCCESS", "").status())
                .isEqualTo(200);
        assertThat(reserved("{\"services\":[\"" + s + "\"],\"max\":10}")).hasSize(1);
    }

    @Test
    void theQueueViewCountsAndPeeksWithoutReserving() {
        String s = pullService("");
        String a = submit(s, 0);
        String b = submit(s, 0);
        submit(s, 60_000);
        reserved("{\"services\":[\"" + s + "\"]}"); // takes a
        Answer q = f.app.get("/api/v1/services/" + s + "/queue?peek=5");
        assertThat(q.status()).as(q.text()).isEqualTo(200);
        assertThat(q.json().get("ready").asLong()).isEqualTo(1);
        assertThat(q.json().get("reserved").asLong()).isEqualTo(1);
        assertThat(q.json().get("delayed").asLong()).isEqualTo(1);
        assertThat(q.json().get("oldestReadyAgeMs").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(q.json().get("items")).extracting(j -> j.get("id").asText()).containsExactly(b);
        assertThat(f.state(b)).as("a peek reserves nothing").isEqualTo("DELAYED");
        assertThat(f.state(a)).isEqualTo("RUNNING");
    }

    @Test
    void aBatchOfResultsIsAnsweredItemByItem() {
        String s = pullService("");
        String one = submit(s, 0);
        String two = submit(s, 0);
        reserved("{\"services\":[\"" + s + "\"],\"max\":2}");
        Answer a = f.app.post(
                "/api/v1/results",
                "{\"results\":["
                        + "{\"jobId\":\"" + one + "\",\"attempt\":1,\"status\":\"SUCCESS\"},"
                        + "{\"jobId\":\"" + two + "\",\"attempt\":7,\"status\":\"SUCCESS\"},"
                        + "{\"jobId\":\"123\",\"attempt\":1,\"status\":\"SUCCESS\"},"
                        + "{\"jobId\":\"" + two + "\",\"attempt\":1,\"status\":\"DONE\"},"
                        + "{\"jobId\":\"" + two + "\",\"attempt\":1,\"status\":\"RELEASE\",\"delayMs\":0}"
                        + "]}");
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        JsonNode r = a.json().get("results");
        assertThat(r).hasSize(5);
        assertThat(r.get(0).get("state").asText()).isEqualTo("FINISHED");
        assertThat(r.get(1).get("error").get("code").asText()).isEqualTo("CONFLICT");
        assertThat(r.get(2).get("error").get("code").asText()).isEqualTo("NOT_FOUND");
        assertThat(r.get(3).get("error").get("code").asText()).isEqualTo("INVALID_ARGUMENT");
        assertThat(r.get(3).get("error").get("field").asText()).isEqualTo("status");
        assertThat(r.get(4).get("state").asText()).isEqualTo("DELAYED");
        assertThat(f.state(one)).isEqualTo("FINISHED");
        assertThat(f.state(two)).isEqualTo("DELAYED");
    }

    @Test
    void badInputIsRefusedWithItsFieldAndChangesNothing() {
        String s = pullService("");
        String pushed = f.httpService("");
        String id = submit(s, 0);
        refused(reserve("{\"services\":[\"" + pushed + "\"]}"), 400, "services");
        refused(reserve("{\"services\":[\"nope\"]}"), 400, "services");
        refused(reserve("{\"services\":[]}"), 400, "services");
        refused(
                reserve("{\"services\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\"]}"),
                400,
                "services");
        refused(reserve("{\"services\":[\"" + s + "\"],\"max\":0}"), 400, "max");
        refused(reserve("{\"services\":[\"" + s + "\"],\"max\":101}"), 400, "max");
        refused(reserve("{\"services\":[\"" + s + "\"],\"ttrMs\":999}"), 400, "ttrMs");
        refused(reserve("{\"services\":[\"" + s + "\"],\"ttrMs\":3600001}"), 400, "ttrMs");
        refused(reserve("{\"services\":[\"" + s + "\"],\"waitMs\":30001}"), 400, "waitMs");
        refused(reserve("{\"services\":[\"" + s + "\"],\"waitMs\":-1}"), 400, "waitMs");
        refused(reserve("{\"services\":[\"" + s + "\"],\"priority\":1}"), 400, "priority");
        assertThat(f.state(id)).as("no bad reserve took it").isEqualTo("DELAYED");

        // another app sees neither its services nor its jobs
        Answer other = f.admin.post("/api/v1/apps", "{\"name\":\"other" + NAMES.incrementAndGet() + "\"}");
        ApiClient stranger = f.admin.as(other.json().get("token").asText());
        refused(stranger.post("/api/v1/reserve", "{\"services\":[\"" + s + "\"]}"), 400, "services");
        reserved("{\"services\":[\"" + s + "\"]}");
        assertThat(stranger.post("/api/v1/jobs/" + id + "/result", "{\"attempt\":1,\"status\":\"SUCCESS\"}")
                        .status())
                .isEqualTo(404);
        assertThat(stranger.post("/api/v1/jobs/" + id + "/touch", "{\"attempt\":1,\"ttrMs\":5000}")
                        .status())
                .isEqualTo(404);
        refused(result(id, 1, "SUCCESS", ",\"delayMs\":10"), 400, "delayMs");
        refused(result(id, 1, "RELEASE", ",\"delayMs\":-1"), 400, "delayMs");
        refused(result(id, 1, "RELEASE", ",\"retryAfterMs\":10"), 400, "retryAfterMs");
        assertThat(f.state(id)).isEqualTo("RUNNING");

        // RELEASE is for reservations only; PULL only with CONSUMER; no move between PULL and push
        String pushedJob = f.submit(pushed, 60_000, "").get("id").asText();
        refused(result(pushedJob, 1, "RELEASE", ""), 400, "status");
        refused(f.app.put("/api/v1/services/" + s, "{\"protocol\":\"PULL\",\"ackMode\":\"AUTO\"}"), 400, "ackMode");
        assertThat(f.app.put("/api/v1/services/" + s, "{\"protocol\":\"HTTP\",\"url\":\"" + f.receiver.url() + "\"}")
                        .status())
                .isEqualTo(409);
        assertThat(f.app.put("/api/v1/services/" + pushed, "{\"protocol\":\"PULL\"}")
                        .status())
                .isEqualTo(409);
        // a request wrong in itself is a 400 before the move it asks for is a 409
        refused(
                f.app.put("/api/v1/services/" + pushed, "{\"protocol\":\"PULL\",\"ackMode\":\"AUTO\"}"),
                400,
                "ackMode");
        refused(f.app.put("/api/v1/services/" + s, "{\"protocol\":\"HTTP\",\"url\":\"ftp://x\"}"), 400, "url");
        assertThat(f.app.get("/api/v1/services/" + pushed)
                        .json()
                        .get("protocol")
                        .asText())
                .isEqualTo("HTTP");
        refused(f.app.get("/api/v1/services/" + pushed + "/queue"), 400, "name");
        refused(f.app.get("/api/v1/services/" + s + "/queue?peek=101"), 400, "peek");
        assertThat(f.app.get("/api/v1/services/nope/queue").status()).isEqualTo(404);
        refused(f.app.post("/api/v1/results", "{\"results\":[]}"), 400, "results");
    }

    private static void refused(Answer a, int status, String field) {
        assertThat(a.status()).as(a.text()).isEqualTo(status);
        assertThat(a.errorField()).as(a.text()).isEqualTo(field);
    }

    @Test
    void readyJobsThatNoConsumerTakesRaiseTheOverdueAlert() {
        String s = pullService("\"alert\":{\"overdueSeconds\":1}");
        String id = submit(s, 0);
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            for (JsonNode a :
                    f.app.get("/api/v1/alerts?state=FIRING&service=" + s).json().get("items")) {
                if ("OVERDUE".equals(a.get("kind").asText())) {
                    return true;
                }
            }
            return false;
        });
        assertThat(f.state(id)).isEqualTo("DELAYED");
    }

    @Test
    void statsAndMetricsShowEachPullServicesBacklog() {
        String s = pullService("");
        submit(s, 0);
        submit(s, 0);
        submit(s, 60_000);
        long answeredBefore = f.app.get("/api/v1/stats")
                .json()
                .get("pullLatenessMs")
                .get("count")
                .asLong();
        assertThat(reserved("{\"services\":[\"" + s + "\"]}")).hasSize(1);
        JsonNode backlog = f.app.get("/api/v1/stats").json().get("pull").get("shop/" + s);
        assertThat(backlog.get("ready").asLong()).isEqualTo(1);
        assertThat(backlog.get("reserved").asLong()).isEqualTo(1);
        assertThat(backlog.get("oldestReadyAgeMs").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(f.app.get("/api/v1/stats")
                        .json()
                        .get("pullLatenessMs")
                        .get("count")
                        .asLong())
                .as("this node's reservations, its hand-out lateness: this one counted (others' may be too)")
                .isGreaterThanOrEqualTo(answeredBefore + 1);
        String gauge = "hourglass_pull_ready{app=\"shop\",service=\"" + s + "\"} 1.0";
        await().atMost(Duration.ofSeconds(15))
                .until(() -> f.admin.get("/metrics").text().contains(gauge));
        String metrics = f.admin.get("/metrics").text();
        assertThat(metrics)
                .contains(
                        "hourglass_pull_waiting ",
                        "hourglass_pull_reserved_total ",
                        "hourglass_pull_reserve_wait_seconds_count ",
                        "hourglass_pull_handout_lateness_seconds_count{app=\"shop\",service=\"" + s + "\"} 1\n",
                        "hourglass_pull_handout_lateness_seconds_bucket{app=\"shop\",service=\"" + s
                                + "\",le=\"0.01\"}");
    }

    @Test
    void twoConsumersRacingForTenThousandJobsHoldEachAttemptOnce() throws Exception {
        String s = pullService("\"maxInFlight\":100000");
        java.util.Set<String> submitted = new java.util.HashSet<>();
        for (int batch = 0; batch < 10; batch++) {
            StringBuilder body = new StringBuilder("{\"jobs\":[");
            for (int i = 0; i < 1_000; i++) {
                body.append(i == 0 ? "" : ",")
                        .append("{\"service\":\"")
                        .append(s)
                        .append("\",\"delayMs\":0,\"payload\":{}}");
            }
            Answer a = f.app.post("/api/v1/jobs/batch", body.append("]}").toString());
            assertThat(a.status()).as(a.text()).isEqualTo(200);
            a.json().get("results").forEach(r -> {
                assertThat(r.has("job")).as(r.toString()).isTrue();
                submitted.add(r.get("job").get("id").asText());
            });
        }
        java.util.Map<String, AtomicInteger> held = new java.util.concurrent.ConcurrentHashMap<>();
        long deadline = System.currentTimeMillis() + 120_000;
        List<CompletableFuture<Void>> consumers = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            consumers.add(CompletableFuture.runAsync(() -> {
                while (System.currentTimeMillis() < deadline) {
                    List<JsonNode> got = reserved("{\"services\":[\"" + s + "\"],\"max\":100,\"ttrMs\":600000}");
                    if (got.isEmpty()) {
                        return;
                    }
                    StringBuilder acks = new StringBuilder("{\"results\":[");
                    for (int i = 0; i < got.size(); i++) {
                        String id = got.get(i).get("id").asText();
                        held.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                        acks.append(i == 0 ? "" : ",")
                                .append("{\"jobId\":\"")
                                .append(id)
                                .append("\",\"attempt\":1,\"status\":\"SUCCESS\"}");
                    }
                    Answer a = f.app.post("/api/v1/results", acks.append("]}").toString());
                    assertThat(a.status()).as(a.text()).isEqualTo(200);
                    a.json().get("results").forEach(r -> assertThat(r.has("state"))
                            .as(r.toString())
                            .isTrue());
                }
            }));
        }
        CompletableFuture.allOf(consumers.toArray(CompletableFuture[]::new))
                .get(150, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(held.keySet()).as("every job reserved").containsExactlyInAnyOrderElementsOf(submitted);
        assertThat(held.values()).as("by one consumer, once").allMatch(n -> n.get() == 1);
        assertThat(f.app.get("/api/v1/services/" + s + "/queue")
                        .json()
                        .get("reserved")
                        .asLong())
                .isZero();
    }

    @Test
    void aJobOfAPullServiceIsNeverPushed() {
        String s = pullService("");
        String id = submit(s, 0);
        await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(3)).until(() -> "DELAYED"
                .equals(f.state(id)));
        assertThat(f.executions(id))
                .as("no attempt until a consumer reserves it")
                .isEmpty();
    }
}
