package dev.hourglass.node.dubbo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.api.CallbackRequest;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsPaired;
import dev.hourglass.sdk.dubbo.CallbackExporter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * DUBBO services: the node calls a business {@code JobCallbackService} exported with the SDK's
 * {@link CallbackExporter} and found through the ZooKeeper registry by group and version (or at a
 * direct URL). Each answer is handled as docs/api.md, "Dubbo", says: SUCCESS, RETRY (with
 * retryAfterMs), FAIL, an exception (RETRY) and no answer within the timeout (TIMEOUT, retried).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
// paired: alone it kept 27% of the two cores; its timeouts are seconds for round trips of milliseconds (machine CPU in
// the thread census, 2026-11-27)
@RunsPaired
class DubboCallbackIT {
    DubboNode hg;
    CallbackExporter shop;
    CallbackExporter other;
    final List<CallbackRequest> received = new CopyOnWriteArrayList<>();
    final List<String> receivedByOther = new CopyOnWriteArrayList<>();
    final Map<String, Integer> hanging = new ConcurrentHashMap<>();
    final AtomicInteger slowNow = new AtomicInteger();
    final AtomicInteger slowMost = new AtomicInteger();

    @BeforeAll
    void start() throws Exception {
        hg = new DubboNode();
        shop = CallbackExporter.of(this::behave)
                .group("shop")
                .version("1.0")
                .registry(hg.registry())
                .host("127.0.0.1")
                .port(freePort())
                .start();
        other = CallbackExporter.of(request -> {
                    receivedByOther.add(request.getJobId());
                    return CallbackResult.success();
                })
                .group("shop-v2")
                .version("2.0")
                .host("127.0.0.1")
                .port(freePort())
                .start();
    }

    @AfterAll
    void stop() throws Exception {
        shop.close();
        other.close();
        hg.close();
    }

    /** The business: what it answers depends on the job's payload. */
    private CallbackResult behave(CallbackRequest request) {
        received.add(request);
        String mode = request.getPayload().replaceAll(".*\"mode\":\"([a-z-]+)\".*", "$1");
        boolean first = request.getAttempt() == 1;
        return switch (mode) {
            case "retry-once" -> first ? CallbackResult.retryAfter(300, "not yet") : CallbackResult.success();
            case "retry-much-later" ->
                first ? CallbackResult.retryAfter(Long.MAX_VALUE, "much later") : CallbackResult.success();
            case "fail" -> CallbackResult.fail("no such order");
            case "slow" -> {
                slowMost.accumulateAndGet(slowNow.incrementAndGet(), Math::max);
                sleep(200);
                slowNow.decrementAndGet();
                yield CallbackResult.success();
            }
            case "throw-once" -> {
                if (first) {
                    throw new IllegalStateException("database of the shop is down");
                }
                yield CallbackResult.success();
            }
            case "hang-once" -> {
                if (first) {
                    hanging.merge(request.getJobId(), 1, Integer::sum);
                    sleep(8_000); // well past the 3 s timeout
                }
                yield CallbackResult.success();
            }
            default -> CallbackResult.success();
        };
    }

    private String service(String name, String json) {
        assertThat(hg.app.put("/api/v1/services/" + name, json).status()).isEqualTo(200);
        return name;
    }

    private String submit(String service, String mode) {
        return hg.app
                .post(
                        "/api/v1/jobs",
                        "{\"service\":\"" + service + "\",\"delayMs\":300,\"bizKey\":\"" + mode + "-"
                                + System.nanoTime() + "\",\"payload\":{\"mode\":\"" + mode
                                + "\"},\"attributes\":{\"region\":\"eu\"}}")
                .json()
                .get("id")
                .asText();
    }

    private JsonNode finalJob(String id) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            String state = hg.app.get("/api/v1/jobs/" + id).json().get("state").asText();
            return state.equals("FINISHED") || state.equals("FAILED");
        });
        return hg.app.get("/api/v1/jobs/" + id).json();
    }

    private List<String> outcomes(String id) {
        List<String> out = new ArrayList<>();
        hg.app
                .get("/api/v1/jobs/" + id + "/executions")
                .json()
                .get("items")
                .forEach(e -> out.add(e.get("outcome").asText()));
        return out;
    }

    @Test
    void everyAnswerOfTheCallbackIsHandledPerSpec() {
        String svc = service(
                "close-order",
                "{\"protocol\":\"DUBBO\",\"dubboGroup\":\"shop\",\"dubboVersion\":\"1.0\",\"timeoutMs\":3000,"
                        + "\"backoff\":{\"initialMs\":100}}"); // each first round trip fits, on a loaded machine too
        String success = submit(svc, "success");
        String retry = submit(svc, "retry-once");
        String fail = submit(svc, "fail");
        String thrown = submit(svc, "throw-once");
        String hang = submit(svc, "hang-once");

        JsonNode done = finalJob(success);
        assertThat(done.get("state").asText()).isEqualTo("FINISHED");
        assertThat(outcomes(success)).containsExactly("SUCCESS");
        CallbackRequest request = received.stream()
                .filter(r -> r.getJobId().equals(success))
                .findFirst()
                .orElseThrow();
        assertThat(request.getApp()).isEqualTo("shop");
        assertThat(request.getService()).isEqualTo(svc);
        assertThat(request.getAttempt()).isEqualTo(1);
        assertThat(request.getMaxAttempts()).isEqualTo(5);
        assertThat(request.getPayload()).isEqualTo("{\"mode\":\"success\"}");
        assertThat(request.getAttributes()).containsEntry("region", "eu");
        assertThat(request.getBizKey()).startsWith("success-");
        assertThat(request.getFireAt().toEpochMilli()).isEqualTo(NodeFixture.epochMs(done.get("fireAt")));
        assertThat(request.getFiredAt()).isAfterOrEqualTo(request.getFireAt());

        assertThat(finalJob(retry).get("state").asText()).isEqualTo("FINISHED");
        assertThat(outcomes(retry)).containsExactly("RETRY", "SUCCESS");
        List<CallbackRequest> retried =
                received.stream().filter(r -> r.getJobId().equals(retry)).toList();
        assertThat(retried.get(1).getFiredAt().toEpochMilli()
                        - retried.get(0).getFiredAt().toEpochMilli())
                .as("retryAfterMs honoured")
                .isGreaterThanOrEqualTo(300);

        JsonNode failed = finalJob(fail);
        assertThat(failed.get("state").asText()).isEqualTo("FAILED");
        assertThat(outcomes(fail)).containsExactly("FAIL");
        assertThat(failed.get("lastError").asText()).contains("no such order");

        assertThat(finalJob(thrown).get("state").asText()).isEqualTo("FINISHED");
        assertThat(outcomes(thrown)).containsExactly("RETRY", "SUCCESS");
        assertThat(hg.app
                        .get("/api/v1/jobs/" + thrown + "/executions")
                        .json()
                        .get("items")
                        .get(0)
                        .get("message")
                        .asText())
                .contains("database of the shop is down");

        assertThat(finalJob(hang).get("state").asText()).isEqualTo("FINISHED");
        assertThat(outcomes(hang)).containsExactly("TIMEOUT", "SUCCESS");
        assertThat(hanging).containsEntry(hang, 1);
    }

    /** retryAfterMs = Long.MAX is clamped to the 30-day maximum, not wrapped into the past. */
    @Test
    void aHugeRetryAfterIsClampedToThirtyDays() {
        String svc = service(
                "much-later",
                "{\"protocol\":\"DUBBO\",\"dubboGroup\":\"shop\",\"dubboVersion\":\"1.0\",\"timeoutMs\":2000,"
                        + "\"backoff\":{\"initialMs\":100}}");
        String id = submit(svc, "retry-much-later");
        long before = System.currentTimeMillis();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> outcomes(id).equals(List.of("RETRY"))
                        && hg.app
                                .get("/api/v1/jobs/" + id)
                                .json()
                                .get("state")
                                .asText()
                                .equals("DELAYED"));
        long after = System.currentTimeMillis();
        JsonNode job = hg.app.get("/api/v1/jobs/" + id).json();
        assertThat(job.get("fireAt").asText()).as("a normal ISO time").matches("20\\d\\d-.*Z");
        assertThat(NodeFixture.epochMs(job.get("fireAt")))
                .as("retried 30 days later: " + job)
                .isBetween(
                        before + Duration.ofDays(30).toMillis() - 10_000,
                        after + Duration.ofDays(30).toMillis());
        assertThat(job.get("lastError").asText()).contains("much later").contains("30 days");
        assertThat(received.stream().filter(r -> r.getJobId().equals(id))).hasSize(1);
        assertThat(hg.app.delete("/api/v1/jobs/" + id).status()).isEqualTo(200);
    }

    @Test
    void aChangedServiceCallsItsNewProviderAndNoProviderIsAnErrorThatIsRetried() {
        String svc = service(
                "remind",
                "{\"protocol\":\"DUBBO\",\"dubboGroup\":\"shop\",\"dubboVersion\":\"1.0\",\"timeoutMs\":2000,"
                        + "\"backoff\":{\"initialMs\":100}}");
        String first = submit(svc, "success");
        assertThat(finalJob(first).get("state").asText()).isEqualTo("FINISHED");

        // the same service, now at a direct URL of another provider: the old reference is replaced
        service(
                svc,
                "{\"protocol\":\"DUBBO\",\"url\":\"" + other.url() + "\",\"dubboGroup\":\"shop-v2\","
                        + "\"dubboVersion\":\"2.0\",\"timeoutMs\":2000,\"backoff\":{\"initialMs\":100}}");
        String second = submit(svc, "success");
        assertThat(finalJob(second).get("state").asText()).isEqualTo("FINISHED");
        assertThat(receivedByOther).containsExactly(second);
        assertThat(received.stream().map(CallbackRequest::getJobId))
                .contains(first)
                .doesNotContain(second);

        // deleted: its reference is closed at once (the metric counts the open ones)
        assertThat(openReferences()).isGreaterThanOrEqualTo(1);
        int before = openReferences();
        assertThat(hg.app.delete("/api/v1/services/" + svc).status()).isEqualTo(204);
        assertThat(openReferences()).isEqualTo(before - 1);

        // a group nobody exports: ERROR attempts, retried, the job stays alive
        service(
                "nobody",
                "{\"protocol\":\"DUBBO\",\"dubboGroup\":\"shop-nobody\",\"timeoutMs\":500,\"backoff\":{\"initialMs\":200}}");
        String orphan = submit("nobody", "success");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> ended(outcomes(orphan)).size() >= 2);
        assertThat(ended(outcomes(orphan))).allMatch(o -> o.equals("ERROR"));
        assertThat(hg.app.get("/api/v1/jobs/" + orphan).json().get("state").asText())
                .isIn("DELAYED", "RUNNING");
        assertThat(hg.app.delete("/api/v1/jobs/" + orphan).status()).isEqualTo(200);
    }

    @Test
    void aSlowReceiverNeverHasMoreThanMaxInFlightCallsAtOnce() {
        String svc = service(
                "slow",
                "{\"protocol\":\"DUBBO\",\"dubboGroup\":\"shop\",\"dubboVersion\":\"1.0\",\"maxInFlight\":3,"
                        + "\"timeoutMs\":10000}");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            ids.add(submit(svc, "slow"));
        }
        for (String id : ids) {
            assertThat(finalJob(id).get("state").asText()).isEqualTo("FINISHED");
        }
        assertThat(slowMost.get()).as("most calls at once").isBetween(2, 3);
    }

    private int openReferences() {
        String metrics = hg.admin.get("/metrics").text();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^hourglass_dubbo_references (\\S+)$")
                .matcher(metrics);
        assertThat(m.find()).as("hourglass_dubbo_references in /metrics").isTrue();
        return (int) Double.parseDouble(m.group(1));
    }

    /** Outcomes of ended attempts (one under way has none yet). */
    private static List<String> ended(List<String> outcomes) {
        return outcomes.stream().filter(o -> !o.equals("null")).toList();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
