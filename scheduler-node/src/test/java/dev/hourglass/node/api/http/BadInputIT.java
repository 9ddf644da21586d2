package dev.hourglass.node.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The bad-input matrix: every bad request gets the documented error and writes nothing. */
@RunsAlongside
class BadInputIT {
    static NodeFixture f;
    static String service;
    /** A DELAYED job an hour out: one job exists, so "nothing changed" is not trivially true. */
    static String delayedJob;

    long jobsBefore;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture();
        service = f.httpService("");
        delayedJob = f.submit(service, 3_600_000, "").get("id").asText();
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @BeforeEach
    void count() {
        jobsBefore = jobCount();
    }

    @AfterEach
    void nothingWritten() {
        assertThat(jobCount()).as("jobs after a refused request").isEqualTo(jobsBefore);
    }

    private static long jobCount() {
        return f.admin.get("/api/v1/jobs?limit=500").json().get("items").size();
    }

    static Stream<Arguments> badSubmits() {
        return Stream.concat(malformedSubmits(), outOfBoundsSubmits());
    }

    static Stream<Arguments> malformedSubmits() {
        String s = "\"service\":\"SVC\"";
        return Stream.of(
                Arguments.of("malformed JSON", "{\"service\":", 400, "INVALID_ARGUMENT", null),
                Arguments.of("not an object", "[1,2]", 400, "INVALID_ARGUMENT", null),
                Arguments.of("empty body", "", 400, "INVALID_ARGUMENT", null),
                Arguments.of(
                        "fireAt and delayMs",
                        "{" + s + ",\"fireAt\":1,\"delayMs\":5}",
                        400,
                        "INVALID_ARGUMENT",
                        "fireAt"),
                Arguments.of("neither fireAt nor delayMs", "{" + s + "}", 400, "INVALID_ARGUMENT", "fireAt"),
                Arguments.of("negative delayMs", "{" + s + ",\"delayMs\":-1}", 400, "INVALID_ARGUMENT", "delayMs"),
                Arguments.of("delayMs a string", "{" + s + ",\"delayMs\":\"10\"}", 400, "INVALID_ARGUMENT", "delayMs"),
                Arguments.of("delayMs a fraction", "{" + s + ",\"delayMs\":1.5}", 400, "INVALID_ARGUMENT", "delayMs"),
                Arguments.of("fireAt a boolean", "{" + s + ",\"fireAt\":true}", 400, "INVALID_ARGUMENT", "fireAt"),
                Arguments.of(
                        "fireAt without offset",
                        "{" + s + ",\"fireAt\":\"2030-01-01T00:00:00\"}",
                        400,
                        "INVALID_ARGUMENT",
                        "fireAt"),
                Arguments.of(
                        "fireAt beyond 10 years",
                        "{" + s + ",\"fireAt\":\"2099-01-01T00:00:00Z\"}",
                        400,
                        "INVALID_ARGUMENT",
                        "fireAt"),
                Arguments.of("service missing", "{\"delayMs\":5}", 400, "INVALID_ARGUMENT", "service"),
                Arguments.of("service a number", "{\"service\":7,\"delayMs\":5}", 400, "INVALID_ARGUMENT", "service"),
                Arguments.of(
                        "unknown service", "{\"service\":\"nope\",\"delayMs\":5}", 400, "INVALID_ARGUMENT", "service"),
                Arguments.of(
                        "bad bizKey",
                        "{" + s + ",\"delayMs\":5,\"bizKey\":\"a b\"}",
                        400,
                        "INVALID_ARGUMENT",
                        "bizKey"),
                Arguments.of(
                        "bizKey too long",
                        "{" + s + ",\"delayMs\":5,\"bizKey\":\"" + "k".repeat(129) + "\"}",
                        400,
                        "INVALID_ARGUMENT",
                        "bizKey"),
                Arguments.of(
                        "attributes not strings",
                        "{" + s + ",\"delayMs\":5,\"attributes\":{\"a\":1}}",
                        400,
                        "INVALID_ARGUMENT",
                        "attributes"),
                Arguments.of(
                        "too many attributes",
                        "{" + s + ",\"delayMs\":5,\"attributes\":" + manyAttributes(17) + "}",
                        400,
                        "INVALID_ARGUMENT",
                        "attributes"),
                Arguments.of(
                        "maxAttempts zero",
                        "{" + s + ",\"delayMs\":5,\"maxAttempts\":0}",
                        400,
                        "INVALID_ARGUMENT",
                        "maxAttempts"),
                Arguments.of(
                        "timeoutMs a string",
                        "{" + s + ",\"delayMs\":5,\"timeoutMs\":\"1s\"}",
                        400,
                        "INVALID_ARGUMENT",
                        "timeoutMs"),
                Arguments.of(
                        "negative expireAfterMs",
                        "{" + s + ",\"delayMs\":5,\"expireAfterMs\":-5}",
                        400,
                        "INVALID_ARGUMENT",
                        "expireAfterMs"),
                Arguments.of("unknown field", "{" + s + ",\"delay\":5}", 400, "INVALID_ARGUMENT", "delay"),
                Arguments.of(
                        "payload over 64 KiB",
                        "{" + s + ",\"delayMs\":5,\"payload\":\"" + "x".repeat(66_000) + "\"}",
                        413,
                        "PAYLOAD_TOO_LARGE",
                        "payload"));
    }

    /** The documented maximum of {@code delayMs}, {@code expireAfterMs} and the fire time ahead: 10 years. */
    private static final long TEN_YEARS_MS = 10L * 366 * 24 * 3600 * 1000;

    /** Numbers over their documented maximum or beyond what a long holds: 400 naming the field. */
    static Stream<Arguments> outOfBoundsSubmits() {
        String s = "\"service\":\"SVC\"";
        String d = s + ",\"delayMs\":5";
        return Stream.of(
                bound("expireAfterMs Long.MAX", d + ",\"expireAfterMs\":" + Long.MAX_VALUE, "expireAfterMs"),
                bound("expireAfterMs over 10 years", d + ",\"expireAfterMs\":" + (TEN_YEARS_MS + 1), "expireAfterMs"),
                bound("expireAfterMs beyond a long", d + ",\"expireAfterMs\":99999999999999999999", "expireAfterMs"),
                bound("expireAfterMs 1e30", d + ",\"expireAfterMs\":1e30", "expireAfterMs"),
                bound("delayMs Long.MAX", s + ",\"delayMs\":" + Long.MAX_VALUE, "delayMs"),
                bound("delayMs over 10 years", s + ",\"delayMs\":" + (TEN_YEARS_MS + 1), "delayMs"),
                bound("delayMs beyond a long", s + ",\"delayMs\":99999999999999999999", "delayMs"),
                bound("delayMs 1e30", s + ",\"delayMs\":1e30", "delayMs"),
                bound("fireAt Long.MAX ms", s + ",\"fireAt\":" + Long.MAX_VALUE, "fireAt"),
                bound("fireAt beyond a long", s + ",\"fireAt\":99999999999999999999", "fireAt"),
                bound("fireAt in year +999999999", s + ",\"fireAt\":\"+999999999-12-31T23:59:59Z\"", "fireAt"),
                bound("fireAt in year -999999999", s + ",\"fireAt\":\"-999999999-01-01T00:00:00Z\"", "fireAt"),
                bound("timeoutMs Long.MAX", d + ",\"timeoutMs\":" + Long.MAX_VALUE, "timeoutMs"),
                bound("timeoutMs over 24 h", d + ",\"timeoutMs\":86400001", "timeoutMs"),
                bound("timeoutMs 1e30", d + ",\"timeoutMs\":1e30", "timeoutMs"),
                bound("maxAttempts over 1000", d + ",\"maxAttempts\":1001", "maxAttempts"),
                bound("maxAttempts beyond an int", d + ",\"maxAttempts\":9999999999", "maxAttempts"));
    }

    private static Arguments bound(String what, String fields, String field) {
        return Arguments.of(what, "{" + fields + "}", 400, "INVALID_ARGUMENT", field);
    }

    private static String manyAttributes(int n) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append("\"a").append(i).append("\":\"v\"");
        }
        return sb.append('}').toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSubmits")
    void aBadSubmitIsRefusedWithItsError(String what, String body, int status, String code, String field) {
        ApiClient.Answer a = f.app.post("/api/v1/jobs", body.replace("SVC", service));
        assertThat(a.status()).as(a.text()).isEqualTo(status);
        assertThat(a.errorCode()).isEqualTo(code);
        assertThat(a.json().path("error").path("message").asText()).isNotBlank();
        if (field != null) {
            assertThat(a.errorField()).isEqualTo(field);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("outOfBoundsSubmits")
    void anOutOfBoundsItemOfABatchGetsItsErrorInItsPlace(
            String what, String body, int status, String code, String field) {
        ApiClient.Answer a = f.app.post("/api/v1/jobs/batch", "{\"jobs\":[" + body.replace("SVC", service) + "]}");
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        JsonNode error = a.json().path("results").path(0).path("error");
        assertThat(error.path("code").asText()).as(a.text()).isEqualTo(code);
        assertThat(error.path("field").asText()).as(a.text()).isEqualTo(field);
        assertThat(error.path("message").asText()).isNotBlank();
    }

    @Test
    void aFireTimeFarInThePastFiresNow() {
        long before = System.currentTimeMillis();
        List<String> fired = new ArrayList<>();
        for (String fireAt : new String[] {Long.toString(Long.MIN_VALUE), "\"-200000000-01-01T00:00:00Z\""}) {
            ApiClient.Answer a =
                    f.app.post("/api/v1/jobs", "{\"service\":\"" + service + "\",\"fireAt\":" + fireAt + "}");
            assertThat(a.status()).as(a.text()).isEqualTo(201);
            assertThat(NodeFixture.epochMs(a.json().get("fireAt")))
                    .as("a past fire time fires now: " + a.text())
                    .isBetween(before, System.currentTimeMillis());
            fired.add(a.json().get("id").asText());
        }
        // they fire at once and move to the backlog: count once they have ended, not while moving
        await().atMost(Duration.ofSeconds(20))
                .until(() -> fired.stream().allMatch(id -> f.state(id).equals("FINISHED")));
        jobsBefore = jobCount();
    }

    @Test
    void outOfBoundsTimesOfAPatchAreRefusedAndChangeNothing() {
        JsonNode job = f.job(delayedJob);
        String[][] cases = {
            {"{\"delayMs\":" + Long.MAX_VALUE + "}", "delayMs"},
            {"{\"delayMs\":99999999999999999999}", "delayMs"},
            {"{\"fireAt\":\"+999999999-12-31T23:59:59Z\"}", "fireAt"},
            {"{\"fireAt\":" + Long.MAX_VALUE + "}", "fireAt"},
        };
        for (String[] c : cases) {
            ApiClient.Answer a = f.app.patch("/api/v1/jobs/" + delayedJob, c[0]);
            assertThat(a.status()).as(c[0] + " -> " + a.text()).isEqualTo(400);
            assertThat(a.errorField()).as(c[0]).isEqualTo(c[1]);
        }
        assertThat(f.job(delayedJob).get("fireAt")).isEqualTo(job.get("fireAt"));
        assertThat(f.job(delayedJob).get("updatedAt")).isEqualTo(job.get("updatedAt"));
    }

    @Test
    void outOfBoundsTimesOfAManualRetryAreRefusedAndChangeNothing() {
        String id = f.submit(service, 3_600_000, "").get("id").asText();
        f.app.delete("/api/v1/jobs/" + id);
        jobsBefore = jobCount();
        String[][] cases = {
            {"{\"delayMs\":" + Long.MAX_VALUE + "}", "delayMs"},
            {"{\"delayMs\":" + (TEN_YEARS_MS + 1) + "}", "delayMs"},
            {"{\"fireAt\":\"+999999999-12-31T23:59:59Z\"}", "fireAt"},
            {"{\"fireAt\":\"-999999999-01-01T00:00:00Z\"}", "fireAt"},
        };
        for (String[] c : cases) {
            ApiClient.Answer a = f.app.post("/api/v1/jobs/" + id + "/retry", c[0]);
            assertThat(a.status()).as(c[0] + " -> " + a.text()).isEqualTo(400);
            assertThat(a.errorField()).as(c[0]).isEqualTo(c[1]);
        }
        assertThat(f.state(id)).isEqualTo("CANCELED");
    }

    @Test
    void anOutOfBoundsRetryAfterOfAResultIsRefusedAndChangesNothing() {
        JsonNode job = f.job(delayedJob);
        for (String retryAfter :
                new String[] {Long.toString(Long.MAX_VALUE), Long.toString(30L * 24 * 3600 * 1000 + 1), "1e30"}) {
            ApiClient.Answer a = f.app.post(
                    "/api/v1/jobs/" + delayedJob + "/result",
                    "{\"attempt\":0,\"status\":\"RETRY\",\"retryAfterMs\":" + retryAfter + "}");
            assertThat(a.status()).as(retryAfter + " -> " + a.text()).isEqualTo(400);
            assertThat(a.errorField()).as(retryAfter).isEqualTo("retryAfterMs");
        }
        assertThat(f.job(delayedJob)).isEqualTo(job);
    }

    @Test
    void searchTimesBeyondTheEpochMillisecondRangeAreRefused() {
        ApiClient.Answer huge = f.app.get("/api/v1/jobs?fireFrom=99999999999999999999");
        assertThat(huge.status()).as(huge.text()).isEqualTo(400);
        assertThat(huge.errorField()).isEqualTo("fireFrom");
        ApiClient.Answer farYear = f.app.get("/api/v1/jobs?fireTo=%2B999999999-12-31T23:59:59Z");
        assertThat(farYear.status()).as(farYear.text()).isEqualTo(400);
        assertThat(farYear.errorField()).isEqualTo("fireTo");
    }

    @Test
    void serviceNumbersAreBounded() {
        String url = "\"protocol\":\"HTTP\",\"url\":\"" + f.receiver.url() + "\"";
        String[][] cases = {
            {"\"timeoutMs\":99999999999999999999", "timeoutMs"},
            {"\"timeoutMs\":86400001", "timeoutMs"},
            {"\"maxAttempts\":1001", "maxAttempts"},
            {"\"maxInFlight\":1e30", "maxInFlight"},
            {"\"backoff\":{\"initialMs\":" + Long.MAX_VALUE + "}", "backoff.initialMs"},
            {"\"backoff\":{\"maxMs\":" + Long.MAX_VALUE + "}", "backoff.maxMs"},
            {"\"backoff\":{\"multiplier\":1e400}", "backoff.multiplier"},
            {"\"alert\":{\"failures\":" + Integer.MAX_VALUE + "}", "alert.failures"},
            {"\"alert\":{\"failures\":0}", "alert.failures"},
            {"\"alert\":{\"windowSeconds\":" + Integer.MAX_VALUE + "}", "alert.windowSeconds"},
            {"\"alert\":{\"windowSeconds\":99999999999999999999}", "alert.windowSeconds"},
        };
        for (String[] c : cases) {
            ApiClient.Answer a = f.app.put("/api/v1/services/bounded", "{" + url + "," + c[0] + "}");
            assertThat(a.status()).as(c[0] + " -> " + a.text()).isEqualTo(400);
            assertThat(a.errorField()).as(c[0]).isEqualTo(c[1]);
        }
        assertThat(f.app.get("/api/v1/services/bounded").status()).isEqualTo(404);
    }

    @Test
    void aWrongOrMissingTokenIsUnauthenticated() {
        String body = "{\"service\":\"" + service + "\",\"delayMs\":5}";
        ApiClient.Answer wrong = f.app.as("hg_not-a-token").post("/api/v1/jobs", body);
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.errorCode()).isEqualTo("UNAUTHENTICATED");
        ApiClient.Answer none = f.app.as(null).post("/api/v1/jobs", body);
        assertThat(none.status()).isEqualTo(401);
        assertThat(f.app.as(null).get("/api/v1/jobs").status()).isEqualTo(401);
        assertThat(f.app.as(null).get("/health/live").status()).isEqualTo(200);
        assertThat(f.app.as(null).get("/api/v1/openapi.json").status()).isEqualTo(200);
        assertThat(f.app.as(null).get("/metrics").status()).isEqualTo(200);
    }

    @Test
    void anotherAppsJobsAndServicesDoNotExistForYou() {
        String otherToken = f.admin
                .post("/api/v1/apps", "{\"name\":\"rival-" + System.nanoTime() % 100000 + "\"}")
                .json()
                .get("token")
                .asText();
        ApiClient other = f.app.as(otherToken);
        String id = f.submit(service, 3_600_000, "").get("id").asText();
        jobsBefore = jobCount();
        assertThat(other.get("/api/v1/jobs/" + id).status()).isEqualTo(404);
        assertThat(other.delete("/api/v1/jobs/" + id).status()).isEqualTo(404);
        assertThat(other.patch("/api/v1/jobs/" + id, "{\"delayMs\":5}").status())
                .isEqualTo(404);
        assertThat(other.post("/api/v1/jobs/" + id + "/fire", "").status()).isEqualTo(404);
        assertThat(other.get("/api/v1/jobs/" + id + "/executions").status()).isEqualTo(404);
        assertThat(other.get("/api/v1/services/" + service).status()).isEqualTo(404);
        ApiClient.Answer foreignService = other.post("/api/v1/jobs", "{\"service\":\"" + service + "\",\"delayMs\":5}");
        assertThat(foreignService.status()).isEqualTo(400);
        assertThat(foreignService.errorField()).isEqualTo("service");
        // naming another app is acting on it: a 404 like its jobs and services (a 403 until 2026-11-28)
        assertThat(other.get("/api/v1/jobs?app=shop").status()).isEqualTo(404);
        assertThat(other.get("/api/v1/jobs?app=no-such-app").status()).isEqualTo(404);
        assertThat(other.post("/api/v1/services/" + service + "/pause?app=shop", "")
                        .status())
                .isEqualTo(404);
        assertThat(f.app.get("/api/v1/services/" + service).json().get("paused").asBoolean())
                .isFalse();
        assertThat(f.state(id)).isEqualTo("DELAYED");
    }

    @Test
    void theAdminNamingABlankAppIsABadArgumentAsOverDubbo() {
        for (ApiClient.Answer blank : List.of(
                f.admin.get("/api/v1/jobs?app="),
                f.admin.get("/api/v1/jobs?app=%20%20"),
                f.admin.post("/api/v1/jobs", "{\"app\":\"\",\"service\":\"" + service + "\",\"delayMs\":5}"),
                f.admin.post("/api/v1/jobs?app=%20", "{\"service\":\"" + service + "\",\"delayMs\":5}"))) {
            assertThat(blank.status()).as(blank.text()).isEqualTo(400);
            assertThat(blank.errorCode()).isEqualTo("INVALID_ARGUMENT");
            assertThat(blank.errorField()).isEqualTo("app");
        }
        // not a blank: an app that does not exist
        assertThat(f.admin.get("/api/v1/jobs?app=nobody").status()).isEqualTo(404);
    }

    @Test
    void unknownJobsAreNotFoundAndFinalJobsConflict() {
        assertThat(f.app.get("/api/v1/jobs/123").status()).isEqualTo(404);
        assertThat(f.app.get("/api/v1/jobs/not-a-number").status()).isEqualTo(404);
        assertThat(f.app.patch("/api/v1/jobs/123", "{\"delayMs\":1}").status()).isEqualTo(404);
        String id = f.submit(service, 3_600_000, "").get("id").asText();
        f.app.delete("/api/v1/jobs/" + id);
        jobsBefore = jobCount();
        assertThat(f.app.patch("/api/v1/jobs/" + id, "{\"delayMs\":1}").status())
                .isEqualTo(409);
        assertThat(f.app.post("/api/v1/jobs/" + id + "/fire", "").status()).isEqualTo(409);
        assertThat(f.app.post("/api/v1/jobs/" + id + "/result", "{\"attempt\":1,\"status\":\"SUCCESS\"}")
                        .status())
                .isEqualTo(409);
        assertThat(f.state(id)).isEqualTo("CANCELED");
    }

    @Test
    void servicesAreValidated() {
        assertThat(f.app.put(
                                "/api/v1/services/Bad_Name",
                                "{\"protocol\":\"HTTP\",\"url\":\"" + f.receiver.url() + "\"}")
                        .errorField())
                .isEqualTo("name");
        ApiClient.Answer kafka = f.app.put("/api/v1/services/k1", "{\"protocol\":\"KAFKA\",\"topic\":\"t\"}");
        assertThat(kafka.status()).isEqualTo(400);
        assertThat(kafka.errorField()).isEqualTo("protocol");
        ApiClient.Answer dubboScheme =
                f.app.put("/api/v1/services/d1", "{\"protocol\":\"DUBBO\",\"url\":\"http://127.0.0.1:20880\"}");
        assertThat(dubboScheme.status()).isEqualTo(400);
        assertThat(dubboScheme.errorField()).isEqualTo("url");
        ApiClient.Answer dubboOffList =
                f.app.put("/api/v1/services/d1", "{\"protocol\":\"DUBBO\",\"url\":\"dubbo://10.1.2.3:20880\"}");
        assertThat(dubboOffList.errorField()).isEqualTo("url");
        ApiClient.Answer dubboGroup =
                f.app.put("/api/v1/services/d1", "{\"protocol\":\"DUBBO\",\"dubboGroup\":\"a,b\"}");
        assertThat(dubboGroup.status()).isEqualTo(400);
        assertThat(dubboGroup.errorField()).isEqualTo("dubboGroup");
        ApiClient.Answer dubboVersion =
                f.app.put("/api/v1/services/d1", "{\"protocol\":\"DUBBO\",\"dubboVersion\":\"*\"}");
        assertThat(dubboVersion.errorField()).isEqualTo("dubboVersion");
        assertThat(f.app.get("/api/v1/services/d1").status()).isEqualTo(404);
        ApiClient.Answer offList =
                f.app.put("/api/v1/services/h1", "{\"protocol\":\"HTTP\",\"url\":\"http://10.1.2.3/cb\"}");
        assertThat(offList.status()).isEqualTo(400);
        assertThat(offList.errorField()).isEqualTo("url");
        ApiClient.Answer shortSecret = f.app.put(
                "/api/v1/services/h2",
                "{\"protocol\":\"HTTP\",\"url\":\"" + f.receiver.url() + "\",\"signingSecret\":\"short\"}");
        assertThat(shortSecret.errorField()).isEqualTo("signingSecret");
        assertThat(f.app.get("/api/v1/services/h1").status()).isEqualTo(404);
        assertThat(f.app.get("/api/v1/services/k1").status()).isEqualTo(404);
        assertThat(f.app.delete("/api/v1/services/" + service).status())
                .as("live jobs")
                .isEqualTo(409);
    }

    @Test
    void appManagementNeedsTheAdmin() {
        assertThat(f.app.post("/api/v1/apps", "{\"name\":\"sneaky\"}").status()).isEqualTo(403);
        assertThat(f.app.get("/api/v1/apps").status()).isEqualTo(403);
        assertThat(f.admin.post("/api/v1/apps", "{\"name\":\"shop\"}").status()).isEqualTo(409);
        assertThat(f.admin.post("/api/v1/apps", "{\"name\":\"UPPER\"}").errorField())
                .isEqualTo("name");
        assertThat(f.admin.get("/api/v1/apps").json().get("items").toString()).doesNotContain("sneaky");
    }

    @Test
    void aRevokedTokenStopsWorking() {
        var issued = f.admin.post("/api/v1/apps/shop/tokens", "").json();
        ApiClient second = f.app.as(issued.get("token").asText());
        assertThat(second.get("/api/v1/jobs").status()).isEqualTo(200);
        assertThat(f.admin
                        .delete("/api/v1/apps/shop/tokens/"
                                + issued.get("tokenId").asText())
                        .status())
                .isEqualTo(204);
        assertThat(second.get("/api/v1/jobs").status()).isEqualTo(401);
        assertThat(f.app.get("/api/v1/jobs").status())
                .as("the first token still works")
                .isEqualTo(200);
    }

    @Test
    void searchParametersAreChecked() {
        assertThat(f.app.get("/api/v1/jobs?limit=0").errorField()).isEqualTo("limit");
        assertThat(f.app.get("/api/v1/jobs?limit=501").errorField()).isEqualTo("limit");
        assertThat(f.app.get("/api/v1/jobs?state=SLEEPING").errorField()).isEqualTo("state");
        assertThat(f.app.get("/api/v1/jobs?cursor=zzz").errorField()).isEqualTo("cursor");
        // digits only, but beyond a long: a typed 400, not a 500 from the number's parse
        assertThat(f.app.get("/api/v1/jobs?cursor=L9223372036854775808").errorField())
                .isEqualTo("cursor");
        assertThat(f.app.get("/api/v1/jobs?cursor=F99999999999999999999").errorField())
                .isEqualTo("cursor");
        assertThat(f.app.get("/api/v1/audit?cursor=9223372036854775808").errorField())
                .isEqualTo("cursor");
        assertThat(f.app.get("/api/v1/alerts?cursor=9223372036854775808").errorField())
                .isEqualTo("cursor");
    }
}
