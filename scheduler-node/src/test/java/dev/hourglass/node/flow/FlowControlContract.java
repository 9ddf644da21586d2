package dev.hourglass.node.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.node.testing.ApiClient.Answer;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.Windows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Flow control per service over the HTTP API (docs/api.md, "Flow control"), the same scenarios on
 * every store: pause and resume with a slow receiver, dead letters, rate limits and their bad
 * input. One node per class; each test has its own services.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FlowControlContract {
    static final ObjectMapper JSON = new ObjectMapper();

    NodeFixture f;

    protected abstract NodeFixture start() throws Exception;

    /** Whether the node can be stopped and started again on the same data (a restart test). */
    protected abstract boolean restartable();

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

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    List<Received> receivedFor(String service) {
        List<Received> out = new ArrayList<>();
        for (Received r : f.receiver.received()) {
            if (service.equals(json(r.body()).path("service").asText())) {
                out.add(r);
            }
        }
        return out;
    }

    @Test
    void aPausedServiceStartsNothingKeepsItsJobsAndDeliversEachOnceAfterTheResume() {
        String service = f.httpService("\"maxInFlight\":2");
        // a slow receiver: attempts under way when the pause comes finish, those queued behind them
        // at the gate go back without using an attempt
        f.receiver.respond(r -> new Reply(200, "", Map.of(), 400));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(f.submit(service, 200, "").get("id").asText());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !receivedFor(service).isEmpty());

        Answer paused = f.app.post("/api/v1/services/" + service + "/pause", "");
        long answeredAt = System.currentTimeMillis();
        assertThat(paused.status()).as(paused.text()).isEqualTo(200);
        assertThat(paused.json().get("paused").asBoolean()).isTrue();
        assertThat(paused.json().get("pausedBy").asText()).isEqualTo("app:shop");
        assertThat(paused.json().get("pausedAt").asText()).isNotEmpty();
        // idempotent: a second pause changes nothing, not even since when
        Answer again = f.app.post("/api/v1/services/" + service + "/pause", "");
        assertThat(again.json().get("pausedAt")).isEqualTo(paused.json().get("pausedAt"));

        sleep(2_500);
        List<Received> afterPause = receivedFor(service).stream()
                .filter(r -> r.at() > answeredAt + 1_000)
                .toList();
        assertThat(afterPause)
                .as("no attempt starts a second after the pause answered")
                .isEmpty();
        int deliveredBeforeResume = receivedFor(service).size();
        assertThat(deliveredBeforeResume)
                .as("the pause came before every job was sent")
                .isLessThan(10);

        String waiting = ids.stream()
                .filter(id -> f.receiver.receivedFor(id).isEmpty())
                .findFirst()
                .orElseThrow();
        JsonNode job = f.job(waiting);
        assertThat(job.get("state").asText()).isEqualTo("DELAYED");
        assertThat(job.get("attempts").asInt())
                .as("given back without using an attempt")
                .isZero();
        assertThat(f.executions(waiting)).as("no attempt logged for it").isEmpty();
        Answer fire = f.app.post("/api/v1/jobs/" + waiting + "/fire", "");
        assertThat(fire.status()).as(fire.text()).isEqualTo(409);

        // a PUT keeps the pause, even one that sends the service back as read
        JsonNode read = f.app.get("/api/v1/services/" + service).json();
        ((com.fasterxml.jackson.databind.node.ObjectNode) read).put("paused", false);
        Answer put = f.app.put("/api/v1/services/" + service, read.toString());
        assertThat(put.status()).as(put.text()).isEqualTo(200);
        assertThat(put.json().get("paused").asBoolean()).isTrue();
        assertThat(f.app.get("/api/v1/services").json().get("items").toString())
                .contains("\"name\":\"" + service + "\"");

        if (restartable()) { // paused services survive restarts
            f.node.close();
            f.startNode();
            assertThat(f.app.get("/api/v1/services/" + service)
                            .json()
                            .get("paused")
                            .asBoolean())
                    .isTrue();
            sleep(1_500);
            assertThat(receivedFor(service)).hasSize(deliveredBeforeResume);
        }

        Answer resumed = f.app.post("/api/v1/services/" + service + "/resume", "");
        assertThat(resumed.status()).as(resumed.text()).isEqualTo(200);
        assertThat(resumed.json().get("paused").asBoolean()).isFalse();
        assertThat(resumed.json().get("resumedAt").asText()).isNotEmpty();
        await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream().allMatch(id -> "FINISHED".equals(f.state(id))));
        for (String id : ids) {
            assertThat(f.receiver.receivedFor(id))
                    .as("job %s delivered once", id)
                    .hasSize(1);
        }

        JsonNode audit = f.app.get("/api/v1/audit").json().get("items");
        List<String> actions = new ArrayList<>();
        audit.forEach(e -> {
            if (service.equals(e.get("request").path("service").asText())) {
                actions.add(e.get("action").asText() + " by " + e.get("actor").asText() + ", changed "
                        + e.get("changed").asInt());
            }
        });
        // newest first: the resume, the second pause (which changed nothing), the first pause
        assertThat(actions)
                .containsExactly(
                        "RESUME_SERVICE by app:shop, changed 1",
                        "PAUSE_SERVICE by app:shop, changed 0",
                        "PAUSE_SERVICE by app:shop, changed 1");
        f.receiver.respond(r -> Reply.ok());
    }

    @Test
    void aFailedJobIsHandedToItsDeadLetterOnceInTheSameTransaction() {
        String letters = f.httpService("");
        String failing =
                f.httpService("\"maxAttempts\":2,\"backoff\":{\"initialMs\":100},\"deadLetter\":\"" + letters + "\"");
        f.receiver.respond(r -> failing.equals(json(r.body()).path("service").asText())
                ? new Reply(500, "receiver down", Map.of(), 0)
                : Reply.ok());
        String id = f.submit(failing, 0, "\"bizKey\":\"order-1\",\"attributes\":{\"orderId\":\"1\"}")
                .get("id")
                .asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> receivedFor(letters).size() == 1);
        assertThat(f.state(id)).isEqualTo("FAILED");
        JsonNode letter = json(receivedFor(letters).get(0).body());
        assertThat(letter.get("bizKey").asText()).isEqualTo("dlq:" + id + ":2");
        assertThat(letter.get("payload")).isEqualTo(json("{\"n\":1}"));
        JsonNode attributes = letter.get("attributes");
        assertThat(attributes.get("orderId").asText()).isEqualTo("1");
        assertThat(attributes.get("hourglass-dead-letter-of").asText()).isEqualTo(id);
        assertThat(attributes.get("hourglass-dead-letter-attempts").asText()).isEqualTo("2");
        assertThat(attributes.get("hourglass-dead-letter-error").asText()).isNotEmpty();
        JsonNode byKey = f.app.get("/api/v1/jobs?bizKey=dlq:" + id + ":2").json();
        assertThat(byKey.toString()).contains(letter.get("jobId").asText());
        sleep(1_000);
        assertThat(receivedFor(letters)).as("one letter, once").hasSize(1);
        f.receiver.respond(r -> Reply.ok());
    }

    @Test
    void anExpiredJobIsDeadLetteredWhenTheServiceSaysSo() {
        String letters = f.httpService("");
        String expiring = f.httpService("\"deadLetter\":\"" + letters + "\",\"deadLetterOn\":[\"FAILED\",\"EXPIRED\"]");
        assertThat(f.app.post("/api/v1/services/" + expiring + "/pause", "").status())
                .isEqualTo(200);
        String id = f.submit(expiring, 0, "\"expireAfterMs\":500").get("id").asText();
        sleep(1_000); // paused past its expiry: it waits, and expires when it would be fired
        assertThat(f.app.post("/api/v1/services/" + expiring + "/resume", "").status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(15)).until(() -> receivedFor(letters).size() == 1);
        assertThat(f.state(id)).isEqualTo("EXPIRED");
        assertThat(receivedFor(expiring)).as("an expired job is never sent").isEmpty();
        assertThat(json(receivedFor(letters).get(0).body()).get("bizKey").asText())
                .isEqualTo("dlq:" + id + ":0");
    }

    @Test
    void aRateLimitedServiceStartsNoMoreThanItsBurstPlusItsRateInAnySecond() {
        String service = f.httpService("\"rateLimit\":{\"perSecond\":20,\"burst\":5}");
        JsonNode read = f.app.get("/api/v1/services/" + service).json();
        assertThat(read.get("rateLimit").get("perSecond").asInt()).isEqualTo(20);
        assertThat(read.get("rateLimit").get("burst").asInt()).isEqualTo(5);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            ids.add(f.submit(service, 300, "").get("id").asText());
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> receivedFor(service).size() == 100);
        List<Long> at = receivedFor(service).stream().map(Received::at).sorted().toList();
        // every window of one second: at most burst + perSecond, and a few ms of network jitter
        assertThat(Windows.mostWithin(at, 1_000)).as("starts within a second").isLessThanOrEqualTo(5 + 20 + 1);
        long span = at.get(at.size() - 1) - at.get(0);
        assertThat(span).as("100 starts at 20/s after a burst of 5").isGreaterThanOrEqualTo(4_000);
        assertThat(span).as("and not much slower").isLessThan(8_000);
        Map<String, Integer> counts = new TreeMap<>(f.receiver.countsByJob());
        ids.forEach(id -> assertThat(counts.get(id)).as("job %s", id).isEqualTo(1));
    }

    String pullService(String extraJson) {
        String name = "pull-" + System.nanoTime() % 1_000_000;
        Answer a = f.app.put(
                "/api/v1/services/" + name,
                "{\"protocol\":\"PULL\"" + (extraJson.isEmpty() ? "" : "," + extraJson) + "}");
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        return name;
    }

    List<JsonNode> reserve(String service, int max, long waitMs) {
        Answer a = f.app.post(
                "/api/v1/reserve",
                "{\"services\":[\"" + service + "\"],\"max\":" + max + ",\"waitMs\":" + waitMs + "}");
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        List<JsonNode> items = new ArrayList<>();
        a.json().get("items").forEach(items::add);
        return items;
    }

    @Test
    void aPausedPullServiceHandsOutNothingAndAWaitingConsumerIsServedAtTheResume() throws Exception {
        String service = pullService("");
        assertThat(f.app.post("/api/v1/services/" + service + "/pause", "").status())
                .isEqualTo(200);
        String id = f.submit(service, 0, "").get("id").asText();
        sleep(300);
        assertThat(reserve(service, 10, 0))
                .as("a paused service hands out nothing")
                .isEmpty();
        java.util.concurrent.CompletableFuture<List<JsonNode>> waiting =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> reserve(service, 10, 15_000));
        sleep(1_500);
        assertThat(waiting).as("still waiting while paused").isNotDone();
        long resumedAt = System.currentTimeMillis();
        assertThat(f.app.post("/api/v1/services/" + service + "/resume", "").status())
                .isEqualTo(200);
        List<JsonNode> got = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
        long servedIn = System.currentTimeMillis() - resumedAt;
        assertThat(got).hasSize(1);
        assertThat(got.get(0).get("id").asText()).isEqualTo(id);
        assertThat(got.get(0).get("attempt").asInt())
                .as("no attempt used while paused")
                .isEqualTo(1);
        assertThat(servedIn).as("served within a second of the resume").isLessThan(1_500);
    }

    @Test
    void aRateLimitedPullServiceReservesNoMoreThanItsBurstPlusItsRate() {
        String service = pullService("\"rateLimit\":{\"perSecond\":10,\"burst\":5}");
        for (int i = 0; i < 40; i++) {
            f.submit(service, 0, "");
        }
        List<Long> reservedAt = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        long until = System.currentTimeMillis() + 15_000;
        while (seen.size() < 40 && System.currentTimeMillis() < until) {
            for (JsonNode r : reserve(service, 100, 0)) {
                long at = System.currentTimeMillis();
                assertThat(seen.add(r.get("id").asText())).as("reserved once").isTrue();
                reservedAt.add(at);
                Answer ack = f.app.post(
                        "/api/v1/jobs/" + r.get("id").asText() + "/result",
                        "{\"attempt\":" + r.get("attempt").asInt() + ",\"status\":\"SUCCESS\"}");
                assertThat(ack.status()).as(ack.text()).isEqualTo(200);
            }
            sleep(20);
        }
        assertThat(seen).hasSize(40);
        List<Long> at = reservedAt.stream().sorted().toList();
        assertThat(Windows.mostWithin(at, 1_000))
                .as("reservations within a second")
                .isLessThanOrEqualTo(5 + 10 + 1);
        assertThat(at.get(at.size() - 1) - at.get(0))
                .as("40 at 10/s after 5 at once")
                .isGreaterThanOrEqualTo(3_000);
    }

    @Test
    void badFlowControlIsATyped400OrA409AndChangesNothing() {
        String letters = f.httpService("");
        String other = f.httpService("");
        String target = "{\"protocol\":\"HTTP\",\"url\":\"" + f.receiver.url() + "\"";
        String svc = "bad-" + System.nanoTime() % 100_000;
        assertThat(f.app.put("/api/v1/services/" + svc, target + ",\"deadLetter\":\"" + svc + "\"}")
                        .errorField())
                .isEqualTo("deadLetter");
        assertThat(f.app.put("/api/v1/services/" + svc, target + ",\"deadLetter\":\"nobody\"}")
                        .errorField())
                .isEqualTo("deadLetter");
        assertThat(f.app.put("/api/v1/services/" + svc, target + ",\"deadLetterOn\":[\"FAILED\"]}")
                        .errorField())
                .isEqualTo("deadLetterOn");
        assertThat(f.app.put(
                                "/api/v1/services/" + svc,
                                target + ",\"deadLetter\":\"" + letters + "\",\"deadLetterOn\":[\"CANCELED\"]}")
                        .errorField())
                .isEqualTo("deadLetterOn");
        assertThat(f.app.put("/api/v1/services/" + svc, target + ",\"rateLimit\":{\"perSecond\":0}}")
                        .errorField())
                .isEqualTo("rateLimit.perSecond");
        assertThat(f.app.put("/api/v1/services/" + svc, target + ",\"rateLimit\":{\"perSecond\":5,\"burst\":0}}")
                        .errorField())
                .isEqualTo("rateLimit.burst");
        assertThat(f.app.put("/api/v1/services/" + svc, target + ",\"rateLimit\":{\"burst\":5}}")
                        .errorField())
                .isEqualTo("rateLimit.perSecond");
        assertThat(f.app.put("/api/v1/services/" + svc, target + ",\"rateLimit\":{\"perSecond\":5,\"x\":1}}")
                        .status())
                .isEqualTo(400);
        assertThat(f.app.get("/api/v1/services/" + svc).status())
                .as("nothing created")
                .isEqualTo(404);

        // another app's service is not a dead letter here: names are looked up in the caller's app
        Answer otherApp = f.admin.post("/api/v1/apps", "{\"name\":\"other-" + System.nanoTime() % 100_000 + "\"}");
        assertThat(otherApp.status()).isEqualTo(201);
        var elsewhere = f.admin.as(otherApp.json().get("token").asText());
        assertThat(elsewhere
                        .put("/api/v1/services/x", target + ",\"deadLetter\":\"" + letters + "\"}")
                        .errorField())
                .isEqualTo("deadLetter");

        // no chains: a dead letter cannot have one, checked on both services' PUTs
        assertThat(f.app.put("/api/v1/services/" + svc, target + ",\"deadLetter\":\"" + letters + "\"}")
                        .status())
                .isEqualTo(200);
        Answer chained = f.app.put("/api/v1/services/" + letters, target + ",\"deadLetter\":\"" + other + "\"}");
        assertThat(chained.status()).as(chained.text()).isEqualTo(409);
        assertThat(f.app.get("/api/v1/services/" + letters)
                        .json()
                        .get("deadLetter")
                        .isNull())
                .isTrue();
        assertThat(f.app.put("/api/v1/services/" + other, target + ",\"deadLetter\":\"" + svc + "\"}")
                        .status())
                .isEqualTo(409);
        // a request wrong in itself is a 400 before the chain it would make is a 409
        Answer wrongAndChained = f.app.put(
                "/api/v1/services/" + other,
                target + ",\"deadLetter\":\"" + svc + "\",\"deadLetterOn\":[\"CANCELED\"]}");
        assertThat(wrongAndChained.status()).as(wrongAndChained.text()).isEqualTo(400);
        assertThat(wrongAndChained.errorField()).isEqualTo("deadLetterOn");
        Answer delete = f.app.delete("/api/v1/services/" + letters);
        assertThat(delete.status()).as("still the dead letter of " + svc).isEqualTo(409);
        assertThat(f.app.post("/api/v1/services/nobody/pause", "").status()).isEqualTo(404);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
