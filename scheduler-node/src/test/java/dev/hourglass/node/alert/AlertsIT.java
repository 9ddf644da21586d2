package dev.hourglass.node.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.api.CallbackSignature;
import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.InProcessCluster;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsPaired;
import dev.hourglass.node.testing.StallWatch;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Alerts on a real three-node cluster (MariaDB, ZooKeeper, HTTP receivers on 127.0.0.1): a service
 * whose receiver keeps failing fires each condition once — one webhook notification per alert
 * even though three nodes run — and resolves when deliveries succeed again; a webhook that is down
 * is retried and recorded while jobs go on firing on time.
 */
@RunsPaired // waits on alerts and webhooks; its lateness bound is a second plus the stalls it measures
class AlertsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long EVALUATE_EVERY_MS = 300;

    InProcessCluster cluster;
    CallbackReceiver receiver;
    CallbackReceiver hooks;
    ApiClient shop;

    @BeforeEach
    void start() throws Exception {
        receiver = new CallbackReceiver();
        hooks = new CallbackReceiver();
        cluster = InProcessCluster.start(3, (i, c) -> {
            c.alerts.evaluateEveryMs = EVALUATE_EVERY_MS;
            c.dubbo.enabled = false; // HTTP services and webhooks only
        });
        shop = cluster.newApp("shop");
    }

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.closeTogether(); // the test is over: its nodes stop at once
        }
        receiver.close();
        hooks.close();
    }

    private JsonNode putService(String name, String url, String alert) {
        ApiClient.Answer a = shop.put(
                "/api/v1/services/" + name,
                "{\"protocol\":\"HTTP\",\"url\":\"" + url + "\",\"maxAttempts\":1"
                        + (alert == null ? "" : ",\"alert\":" + alert) + "}");
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        return a.json();
    }

    private void submit(String service, int jobs, long delayMs) {
        StringBuilder body = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < jobs; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"service\":\"")
                    .append(service)
                    .append("\",\"delayMs\":")
                    .append(delayMs)
                    .append('}');
        }
        assertThat(shop.post("/api/v1/jobs/batch", body.append("]}").toString()).status())
                .isEqualTo(200);
    }

    /** The webhook notifications received so far, as (kind/state) → how many. */
    private Map<String, Integer> notifications() {
        Map<String, Integer> counts = new TreeMap<>();
        for (CallbackReceiver.Received r : hooks.received()) {
            JsonNode n = parse(r.body());
            counts.merge(n.get("kind").asText() + "/" + n.get("state").asText(), 1, Integer::sum);
        }
        return counts;
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (Exception e) {
            throw new IllegalStateException(body, e);
        }
    }

    @Test
    void aFailingReceiverFiresEachConditionOnceAcrossThreeNodesAndResolvesWhenDeliveriesSucceed() throws Exception {
        receiver.respond(r -> Reply.status(500));
        assertThat(shop.put(
                                "/api/v1/services/elsewhere",
                                "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url()
                                        + "\",\"alert\":{\"failures\":3,\"webhook\":\"http://10.1.2.3/hook\"}}")
                        .status())
                .as("a webhook off the callback allow-list")
                .isEqualTo(400);
        // the window outlasts the checks of the FIRING alerts below, also on a loaded machine: the
        // failures age out of it 12 s after they happened and FAILED_JOBS resolves by itself then
        // (with 4 s it did so before the checks were done, under CI's load)
        String secret = putService(
                        "flaky",
                        receiver.url(),
                        "{\"failures\":3,\"windowSeconds\":12,\"consecutiveFailures\":5,\"webhook\":\"" + hooks.url()
                                + "\"}")
                .get("signingSecret")
                .asText();
        submit("flaky", 8, 0);

        await().atMost(Duration.ofSeconds(30)).until(() -> notifications()
                .keySet()
                .containsAll(List.of("FAILED_JOBS/FIRING", "CONSECUTIVE_FAILURES/FIRING")));
        Thread.sleep(10 * EVALUATE_EVERY_MS); // ten more evaluations: nothing is notified twice
        assertThat(notifications())
                .as("one notification per alert, with three nodes evaluating")
                .isEqualTo(Map.of("FAILED_JOBS/FIRING", 1, "CONSECUTIVE_FAILURES/FIRING", 1));
        for (CallbackReceiver.Received r : hooks.received()) {
            assertThat(CallbackSignature.verify(
                            secret,
                            r.signature(),
                            r.body().getBytes(StandardCharsets.UTF_8),
                            System.currentTimeMillis(),
                            300_000))
                    .as("signed with the service's secret")
                    .isTrue();
            assertThat(parse(r.body()).get("service").asText()).isEqualTo("flaky");
        }
        JsonNode firing = shop.get("/api/v1/alerts?state=FIRING").json().get("items");
        assertThat(firing).hasSize(2);
        for (HourglassNode n : cluster.nodes()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> new ApiClient(n.baseUrl(), "")
                    .get("/metrics")
                    .text()
                    .contains("hourglass_alerts_firing{app=\"shop\",kind=\"FAILED_JOBS\",service=\"flaky\"} 1.0"));
        }

        // the receiver recovers: the streak ends with the first success, the failures age out of the window
        receiver.respond(r -> Reply.ok());
        submit("flaky", 5, 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> notifications()
                .keySet()
                .containsAll(List.of("FAILED_JOBS/RESOLVED", "CONSECUTIVE_FAILURES/RESOLVED")));
        Thread.sleep(10 * EVALUATE_EVERY_MS);
        assertThat(notifications())
                .isEqualTo(Map.of(
                        "FAILED_JOBS/FIRING", 1,
                        "CONSECUTIVE_FAILURES/FIRING", 1,
                        "FAILED_JOBS/RESOLVED", 1,
                        "CONSECUTIVE_FAILURES/RESOLVED", 1));
        assertThat(shop.get("/api/v1/alerts?state=FIRING").json().get("items")).isEmpty();
        JsonNode history = shop.get("/api/v1/alerts?service=flaky&limit=1").json();
        assertThat(history.get("items")).hasSize(1);
        JsonNode second = shop.get("/api/v1/alerts?service=flaky&limit=1&cursor="
                        + history.get("nextCursor").asText())
                .json();
        assertThat(second.get("items")).hasSize(1);
        assertThat(second.get("items").get(0).get("id").asText())
                .isNotEqualTo(history.get("items").get(0).get("id").asText());
        JsonNode resolved = history.get("items").get(0);
        assertThat(resolved.get("state").asText()).isEqualTo("RESOLVED");
        assertThat(resolved.get("notification").get("notifiedState").asText()).isEqualTo("RESOLVED");

        String id = resolved.get("id").asText();
        ApiClient other = cluster.newApp("other");
        assertThat(other.get("/api/v1/alerts").json().get("items"))
                .as("another app's alerts")
                .isEmpty();
        assertThat(other.post("/api/v1/alerts/" + id + "/ack", "").status()).isEqualTo(404);
        JsonNode acked = shop.post("/api/v1/alerts/" + id + "/ack", "").json();
        assertThat(acked.get("acknowledgedBy").asText()).isEqualTo("app:shop");
        assertThat(acked.get("acknowledgedAt").isNull()).isFalse();
        for (HourglassNode n : cluster.nodes()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> !new ApiClient(n.baseUrl(), "")
                    .get("/metrics")
                    .text()
                    .contains("hourglass_alerts_firing{app=\"shop\""));
        }
    }

    @Test
    void theAppsDefaultWebhookTakesTheAlertsOfServicesThatNameNone() throws Exception {
        ApiClient admin = cluster.admin();
        assertThat(admin.put("/api/v1/apps/shop/alert-webhook", "{\"webhook\":\"http://10.1.2.3/hook\"}")
                        .errorField())
                .as("off the callback allow-list")
                .isEqualTo("webhook");
        assertThat(shop.put("/api/v1/apps/shop/alert-webhook", "{\"webhook\":\"" + hooks.url() + "\"}")
                        .status())
                .as("the admin's only")
                .isEqualTo(403);
        assertThat(admin.put("/api/v1/apps/nope/alert-webhook", "{\"webhook\":null}")
                        .status())
                .isEqualTo(404);
        assertThat(admin.put("/api/v1/apps/shop/alert-webhook", "{\"webhook\":\"" + hooks.url() + "\"}")
                        .status())
                .isEqualTo(200);
        assertThat(admin.get("/api/v1/apps/shop/alert-webhook")
                        .json()
                        .get("webhook")
                        .asText())
                .isEqualTo(hooks.url());
        receiver.respond(r -> Reply.status(500));
        putService("quiet", receiver.url(), "{\"failures\":1,\"windowSeconds\":600}");
        submit("quiet", 1, 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> notifications().containsKey("FAILED_JOBS/FIRING"));
        assertThat(parse(hooks.received().get(0).body()).get("service").asText())
                .isEqualTo("quiet");
    }

    @Test
    void aWebhookThatIsDownIsRetriedAndRecordedWhileJobsFireOnTime() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        receiver.respond(r -> r.body().contains("\"broken\"") ? Reply.status(500) : Reply.ok());
        putService(
                "broken",
                receiver.url(),
                "{\"failures\":1,\"windowSeconds\":600,\"webhook\":\"http://127.0.0.1:" + closedPort + "/hook\"}");
        putService("steady", receiver.url(), null);
        submit("broken", 3, 0);

        // meanwhile firing goes on at full rate: 300 jobs of another service due over 3 s, from 3 s
        // ahead (the batch is built and stored first), while the alert fires and its notification
        // fails and waits for its retry; each is delivered on time
        long firstFireAt = System.currentTimeMillis() + 3_000;
        StallWatch stalls = new StallWatch();
        StringBuilder body = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < 300; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"service\":\"steady\",\"fireAt\":")
                    .append(firstFireAt + i * 10L)
                    .append('}');
        }
        JsonNode results = shop.post("/api/v1/jobs/batch", body.append("]}").toString())
                .json()
                .get("results");
        List<String> ids = new ArrayList<>();
        results.forEach(r -> ids.add(r.get("job").get("id").asText()));
        // the alert fires, its notification fails and is tried again (5 s later, then 10 s, ...)
        // while those jobs fire
        await().atMost(Duration.ofSeconds(40)).until(() -> {
            JsonNode items = shop.get("/api/v1/alerts?service=broken").json().get("items");
            return items.size() == 1
                    && items.get(0).get("notification").get("failedAttempts").asInt() >= 2;
        });
        JsonNode alert =
                shop.get("/api/v1/alerts?service=broken").json().get("items").get(0);
        assertThat(alert.get("state").asText()).isEqualTo("FIRING");
        // "meanwhile": it fired, and its notification was owed, before the last of those jobs was due
        assertThat(NodeFixture.epochMs(alert.get("firedAt")))
                .as("the alert fired while the steady jobs were due")
                .isLessThan(firstFireAt + 2_990);
        assertThat(alert.get("notification").get("notifiedState").isNull()).isTrue();
        assertThat(alert.get("notification").get("lastError").asText()).contains("unreachable");

        await().atMost(Duration.ofSeconds(30))
                .until(() -> receiver.countsByJob().keySet().containsAll(ids));
        long worst = 0;
        for (JsonNode r : results) {
            long fireAt =
                    java.time.Instant.parse(r.get("job").get("fireAt").asText()).toEpochMilli();
            long late =
                    receiver.receivedFor(r.get("job").get("id").asText()).get(0).at() - fireAt;
            assertThat(late).as("never early").isGreaterThanOrEqualTo(0);
            worst = Math.max(worst, late);
        }
        stalls.close();
        System.out.printf(
                "ALERTS: webhook down, 300 jobs of another service: worst lateness %d ms, %s%n", worst, stalls);
        // a notifier blocking the engine would make them seconds late
        assertThat(worst)
                .as("worst lateness while a webhook is down; %s", stalls)
                .isLessThan(1_000 + stalls.longestStallMs());
    }
}
