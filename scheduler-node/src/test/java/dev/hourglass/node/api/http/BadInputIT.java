package dev.hourglass.node.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.NodeFixture;
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
class BadInputIT {
    static NodeFixture f;
    static String service;
    long jobsBefore;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture();
        service = f.httpService("");
        f.submit(service, 3_600_000, ""); // one job exists, so "nothing changed" is not trivially true
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
        assertThat(other.get("/api/v1/jobs?app=shop").status()).isEqualTo(403);
        assertThat(f.state(id)).isEqualTo("DELAYED");
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
    }
}
