package dev.hourglass.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobChange;
import dev.hourglass.api.JobState;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.JobView;
import dev.hourglass.api.Reservation;
import dev.hourglass.api.ReserveRequest;
import dev.hourglass.api.ResultAnswer;
import dev.hourglass.api.ResultReport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The HTTP client of the Hourglass API for business services: submit and manage jobs, sync or
 * async. Every failure is a {@link HourglassException} carrying the API's error code (a transport
 * failure is UNAVAILABLE). Thread-safe; share one instance.
 *
 * <p>Pull consumers (docs/api.md, "Pull consumers") reserve jobs with {@link #reserve}, keep a slow
 * one with {@link #touch} and answer with {@link #reportResults}; {@code
 * dev.hourglass.sdk.pull.PullConsumer} does all three for a handler.
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

    /** The result of the current attempt ({@code report.getJobId()} is not read: {@code jobId} names the job). */
    public JobView reportResult(String jobId, ResultReport report) {
        ObjectNode body = resultJson(report);
        return join(send("POST", "api/v1/jobs/" + jobId + "/result", body).thenApply(HourglassClient::jobView));
    }

    /**
     * Reserves up to {@code request.getMax()} ready jobs of the request's services, in the order
     * given. With {@code waitMs} the node holds the call up to that long when none is ready, and an
     * empty list means none came; the call's timeout is this client's timeout plus {@code waitMs}.
     */
    public List<Reservation> reserve(ReserveRequest request) {
        return join(reserveAsync(request));
    }

    public CompletableFuture<List<Reservation>> reserveAsync(ReserveRequest request) {
        ObjectNode body = JSON.createObjectNode();
        if (request.getServices() != null) {
            body.set("services", JSON.valueToTree(request.getServices()));
        }
        if (request.getMax() != null) {
            body.put("max", request.getMax());
        }
        if (request.getTtrMs() != null) {
            body.put("ttrMs", request.getTtrMs());
        }
        Duration callTimeout = timeout;
        if (request.getWaitMs() != null) {
            body.put("waitMs", request.getWaitMs());
            callTimeout = timeout.plusMillis(Math.max(0, request.getWaitMs()));
        }
        return send("POST", "api/v1/reserve", body, callTimeout).thenApply(json -> {
            List<Reservation> reservations = new ArrayList<>();
            json.path("items").forEach(item -> reservations.add(reservation(item)));
            return reservations;
        });
    }

    /**
     * Reports up to 1,000 results at once, each naming its job ({@link ResultReport#getJobId()}).
     * One answer per report, in order: accepted with the job's state, or refused with the error
     * (CONFLICT for an attempt that is no longer current) and then nothing changed for that job.
     */
    public List<ResultAnswer> reportResults(List<ResultReport> results) {
        return join(reportResultsAsync(results));
    }

    public CompletableFuture<List<ResultAnswer>> reportResultsAsync(List<ResultReport> results) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode items = body.putArray("results");
        for (ResultReport report : results) {
            items.addObject().put("jobId", report.getJobId()).setAll(resultJson(report));
        }
        return send("POST", "api/v1/results", body).thenApply(json -> {
            List<ResultAnswer> answers = new ArrayList<>();
            json.path("results").forEach(answer -> answers.add(resultAnswer(answer)));
            return answers;
        });
    }

    /**
     * Moves the deadline of reservation {@code attempt} of the job to now + {@code ttrMs}; CONFLICT
     * when that attempt is not the job's current one any more (its deadline passed, or it was
     * answered): the reservation is lost and its result will be refused too.
     */
    public Reservation touch(String jobId, int attempt, long ttrMs) {
        return join(touchAsync(jobId, attempt, ttrMs));
    }

    public CompletableFuture<Reservation> touchAsync(String jobId, int attempt, long ttrMs) {
        ObjectNode body = JSON.createObjectNode().put("attempt", attempt).put("ttrMs", ttrMs);
        return send("POST", "api/v1/jobs/" + jobId + "/touch", body).thenApply(HourglassClient::reservation);
    }

    /** A result without its job id, as both result endpoints take it; null fields are left out. */
    private static ObjectNode resultJson(ResultReport report) {
        ObjectNode body = JSON.createObjectNode();
        body.put("attempt", report.getAttempt());
        body.put("status", report.getStatus().name());
        if (report.getMessage() != null) {
            body.put("message", report.getMessage());
        }
        if (report.getRetryAfterMs() != null) {
            body.put("retryAfterMs", report.getRetryAfterMs());
        }
        if (report.getDelayMs() != null) {
            body.put("delayMs", report.getDelayMs());
        }
        return body;
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
        return send(method, path, body, timeout);
    }

    private CompletableFuture<JsonNode> send(String method, String path, JsonNode body, Duration callTimeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(callTimeout)
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
        return readJob(n, new JobView());
    }

    /** The job JSON plus the reservation's {@code attempt} and {@code deadline}. */
    static Reservation reservation(JsonNode n) {
        return readJob(n, new Reservation())
                .setAttempt(n.path("attempt").asInt())
                .setDeadline(Instant.parse(n.path("deadline").asText()));
    }

    static ResultAnswer resultAnswer(JsonNode n) {
        ResultAnswer answer = new ResultAnswer()
                .setJobId(n.path("jobId").asText())
                .setAttempt(n.path("attempt").asInt());
        JsonNode error = n.path("error");
        if (error.isObject()) {
            // an item's error has no status of its own: an unknown code reads as the caller's fault
            return answer.setErrorCode(codeOf(error.path("code").asText(), ErrorCode.INVALID_ARGUMENT.httpStatus()))
                    .setErrorMessage(error.path("message").asText(null))
                    .setErrorField(
                            error.path("field").isTextual() ? error.get("field").asText() : null);
        }
        return answer.setState(JobState.valueOf(n.path("state").asText()));
    }

    private static <T extends JobView> T readJob(JsonNode n, T view) {
        Map<String, String> attributes = new LinkedHashMap<>();
        n.path("attributes")
                .fields()
                .forEachRemaining(e -> attributes.put(e.getKey(), e.getValue().asText()));
        view.setId(n.path("id").asText())
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
        return view;
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
