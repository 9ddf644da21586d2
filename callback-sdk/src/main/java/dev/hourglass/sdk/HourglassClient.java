package dev.hourglass.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobChange;
import dev.hourglass.api.JobState;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.JobView;
import dev.hourglass.api.ResultReport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The HTTP client of the Hourglass API for business services: submit and manage jobs, sync or
 * async. Every failure is a {@link HourglassException} carrying the API's error code (a transport
 * failure is UNAVAILABLE). Thread-safe; share one instance.
 *
 * <pre>{@code
 * HourglassClient hourglass = HourglassClient.create("http://hourglass:8080", token);
 * JobView job = hourglass.submit(new JobSubmission()
 *         .setService("order-close").setDelayMs(1_800_000L)
 *         .setPayload("{\"orderId\":42}").setBizKey("order-42-close"));
 * }</pre>
 */
public final class HourglassClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final String token;
    private final HttpClient http;
    private final Duration timeout;

    private HourglassClient(URI base, String token, Duration timeout) {
        this.base = base;
        this.token = token;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    public static HourglassClient create(String baseUrl, String token) {
        return new HourglassClient(
                URI.create(baseUrl.endsWith("/") ? baseUrl : baseUrl + "/"), token, Duration.ofSeconds(30));
    }

    public JobView submit(JobSubmission job) {
        return join(submitAsync(job));
    }

    public CompletableFuture<JobView> submitAsync(JobSubmission job) {
        return send("POST", "api/v1/jobs", submissionJson(job)).thenApply(HourglassClient::jobView);
    }

    public JobView get(String jobId) {
        return join(send("GET", "api/v1/jobs/" + jobId, null).thenApply(HourglassClient::jobView));
    }

    public JobView reschedule(String jobId, JobChange change) {
        ObjectNode body = JSON.createObjectNode();
        if (change.getFireAt() != null) {
            body.put("fireAt", change.getFireAt().toEpochMilli());
        }
        if (change.getDelayMs() != null) {
            body.put("delayMs", change.getDelayMs());
        }
        if (change.getPayload() != null) {
            body.set("payload", parse(change.getPayload()));
        }
        if (change.getAttributes() != null) {
            body.set("attributes", JSON.valueToTree(change.getAttributes()));
        }
        return join(send("PATCH", "api/v1/jobs/" + jobId, body).thenApply(HourglassClient::jobView));
    }

    public JobView cancel(String jobId) {
        return join(send("DELETE", "api/v1/jobs/" + jobId, null).thenApply(HourglassClient::jobView));
    }

    public JobView fireNow(String jobId) {
        return join(send("POST", "api/v1/jobs/" + jobId + "/fire", null).thenApply(HourglassClient::jobView));
    }

    public JobView retry(String jobId, Instant fireAt) {
        ObjectNode body = JSON.createObjectNode();
        if (fireAt != null) {
            body.put("fireAt", fireAt.toEpochMilli());
        }
        return join(send("POST", "api/v1/jobs/" + jobId + "/retry", body).thenApply(HourglassClient::jobView));
    }

    public JobView reportResult(String jobId, ResultReport report) {
        ObjectNode body = JSON.createObjectNode();
        body.put("attempt", report.getAttempt());
        body.put("status", report.getStatus().name());
        if (report.getMessage() != null) {
            body.put("message", report.getMessage());
        }
        if (report.getRetryAfterMs() != null) {
            body.put("retryAfterMs", report.getRetryAfterMs());
        }
        return join(send("POST", "api/v1/jobs/" + jobId + "/result", body).thenApply(HourglassClient::jobView));
    }

    private static ObjectNode submissionJson(JobSubmission job) {
        ObjectNode body = JSON.createObjectNode();
        body.put("service", job.getService());
        if (job.getFireAt() != null) {
            body.put("fireAt", job.getFireAt().toEpochMilli());
        }
        if (job.getDelayMs() != null) {
            body.put("delayMs", job.getDelayMs());
        }
        if (job.getPayload() != null) {
            body.set("payload", parse(job.getPayload()));
        }
        if (job.getBizKey() != null) {
            body.put("bizKey", job.getBizKey());
        }
        if (job.getAttributes() != null && !job.getAttributes().isEmpty()) {
            body.set("attributes", JSON.valueToTree(job.getAttributes()));
        }
        if (job.getMaxAttempts() != null) {
            body.put("maxAttempts", job.getMaxAttempts());
        }
        if (job.getTimeoutMs() != null) {
            body.put("timeoutMs", job.getTimeoutMs());
        }
        if (job.getExpireAfterMs() != null) {
            body.put("expireAfterMs", job.getExpireAfterMs());
        }
        return body;
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw HourglassException.invalid("payload", "payload is not JSON text: " + e.getMessage());
        }
    }

    private CompletableFuture<JsonNode> send(String method, String path, JsonNode body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(timeout)
                .header("Authorization", "Bearer " + token)
                .header("Accept", "application/json");
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString())
                .handle((response, error) -> {
                    if (error != null) {
                        throw new HourglassException(ErrorCode.UNAVAILABLE, "Hourglass is not reachable: " + error);
                    }
                    JsonNode json = readJson(response.body());
                    if (response.statusCode() >= 400) {
                        JsonNode e = json.path("error");
                        throw new HourglassException(
                                codeOf(e.path("code").asText(), response.statusCode()),
                                e.path("message").asText("HTTP " + response.statusCode()),
                                e.path("field").isTextual() ? e.get("field").asText() : null);
                    }
                    return json;
                });
    }

    private static JsonNode readJson(String text) {
        try {
            return text == null || text.isEmpty() ? JSON.createObjectNode() : JSON.readTree(text);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    private static ErrorCode codeOf(String code, int status) {
        for (ErrorCode c : ErrorCode.values()) {
            if (c.name().equals(code) || (code.isEmpty() && c.httpStatus() == status)) {
                return c;
            }
        }
        return status >= 500 ? ErrorCode.UNAVAILABLE : ErrorCode.INVALID_ARGUMENT;
    }

    static JobView jobView(JsonNode n) {
        Map<String, String> attributes = new LinkedHashMap<>();
        n.path("attributes")
                .fields()
                .forEachRemaining(e -> attributes.put(e.getKey(), e.getValue().asText()));
        return new JobView()
                .setId(n.path("id").asText())
                .setApp(n.path("app").asText())
                .setService(n.path("service").asText())
                .setBizKey(n.path("bizKey").isTextual() ? n.get("bizKey").asText() : null)
                .setState(JobState.valueOf(n.path("state").asText()))
                .setFireAt(Instant.parse(n.path("fireAt").asText()))
                .setCreatedAt(Instant.parse(n.path("createdAt").asText()))
                .setUpdatedAt(Instant.parse(n.path("updatedAt").asText()))
                .setAttempts(n.path("attempts").asInt())
                .setMaxAttempts(n.path("maxAttempts").asInt())
                .setTimeoutMs(n.path("timeoutMs").asLong())
                .setExpireAfterMs(
                        n.path("expireAfterMs").isNumber()
                                ? n.get("expireAfterMs").asLong()
                                : null)
                .setPayload(n.path("payload").toString())
                .setAttributes(attributes)
                .setLastError(
                        n.path("lastError").isTextual() ? n.get("lastError").asText() : null)
                .setShard(n.path("shard").asInt());
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof HourglassException h) {
                throw h;
            }
            throw new HourglassException(ErrorCode.UNAVAILABLE, String.valueOf(e.getCause()));
        }
    }
}
