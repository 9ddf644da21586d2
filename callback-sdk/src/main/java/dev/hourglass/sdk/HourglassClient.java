package dev.hourglass.sdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.BatchItemResult;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.ExecutionView;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobChange;
import dev.hourglass.api.JobState;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.JobView;
import dev.hourglass.api.Reservation;
import dev.hourglass.api.ReserveRequest;
import dev.hourglass.api.ResultAnswer;
import dev.hourglass.api.ResultReport;
import io.github.resilience4j.retry.Retry;
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
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * The HTTP client of the Hourglass API for business services: submit, find and manage jobs, sync or
 * async, and consume PULL services. Thread-safe; build one and share it.
 *
 * <pre>{@code
 * HourglassClient hourglass = HourglassClient.builder()
 *         .baseUrls("http://hourglass-1:8080", "http://hourglass-2:8080")
 *         .token(System.getenv("HOURGLASS_TOKEN"))
 *         .objectMapper(mapper)   // payloads as your types
 *         .build();
 * JobView job = hourglass.submit(new JobSubmission()
 *         .setService("order-close").setDelayMs(1_800_000L)
 *         .setPayload(hourglass.toPayload(new CloseOrder(42))).setBizKey("order-42-close"));
 * }</pre>
 *
 * <p><b>Failures</b> are {@link HourglassException}s with the API's error code, field and message;
 * one of reaching the node is {@code UNAVAILABLE} and keeps the I/O failure as its cause.
 *
 * <p><b>Retries</b> (3 tries by default) happen only where sending a call again cannot do it twice:
 * the node refused it ({@code RATE_LIMITED}, {@code UNAVAILABLE}; after its {@code Retry-After}),
 * it never reached the node, or it is a read or a submit whose jobs carry bizKeys (the node answers
 * a repeat with the job stored the first time). With {@link Builder#generateBizKeys} the client
 * gives every submit without a bizKey one of its own, so that every submit can be retried. A
 * connection failure or {@code UNAVAILABLE} moves the client on to the next of its base URLs.
 *
 * <p><b>Pull consumers</b> (docs/api.md, "Pull consumers") reserve jobs with {@link #reserve}, keep
 * a slow one with {@link #touch} and answer with {@link #reportResults}; {@code
 * dev.hourglass.sdk.pull.PullConsumer} does all three for a handler.
 */
public final class HourglassClient {
    private static final String GENERATED_BIZ_KEY_PREFIX = "hgc-";
    /** Reads the node's answers: the API's own JSON, whatever the caller's mapper is set to do. */
    private static final ObjectMapper READER = new ObjectMapper();

    private final List<URI> bases;
    private final AtomicInteger preferred = new AtomicInteger();
    private final String token;
    private final HttpClient http;
    private final Duration timeout;
    private final ObjectMapper json;
    private final boolean generateBizKeys;
    private final Retry repeatable;
    private final Retry once;
    private final ClientObserver observer;

    private HourglassClient(Builder b) {
        if (b.baseUrls.isEmpty()) {
            throw new IllegalArgumentException("at least one base URL is needed");
        }
        if (b.token == null || b.token.isBlank()) {
            throw new IllegalArgumentException("a token is needed (an app token, or the admin token)");
        }
        List<URI> uris = new ArrayList<>();
        for (String url : b.baseUrls) {
            uris.add(URI.create(url.endsWith("/") ? url : url + "/"));
        }
        this.bases = List.copyOf(uris);
        this.token = b.token;
        this.timeout = b.requestTimeout;
        this.json = b.objectMapper;
        this.generateBizKeys = b.generateBizKeys;
        this.observer = b.observer;
        HttpClient.Builder http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(b.connectTimeout);
        if (b.sslContext != null) {
            http.sslContext(b.sslContext);
        }
        if (b.executor != null) {
            http.executor(b.executor);
        }
        this.http = http.build();
        this.repeatable = Retry.of("hourglass-repeatable", b.retries.config(true));
        this.once = Retry.of("hourglass-once", b.retries.config(false));
    }

    /** A client of one node (or a load balancer in front of several) with the defaults. */
    public static HourglassClient create(String baseUrl, String token) {
        return builder().baseUrls(baseUrl).token(token).build();
    }

    /** A builder with the defaults: 5 s to connect, 30 s per call, 3 tries, no TLS settings of its own. */
    public static Builder builder() {
        return new Builder();
    }

    /** How a {@link HourglassClient} is made; every setting but the base URL and the token is optional. */
    public static final class Builder {
        private List<String> baseUrls = List.of();
        private String token;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private SSLContext sslContext;
        private Executor executor;
        private ObjectMapper objectMapper = new ObjectMapper();
        private RetryRule retries = RetryRule.DEFAULT;
        private boolean generateBizKeys;
        private ClientObserver observer = ClientObserver.NONE;

        private Builder() {}

        /**
         * The nodes' addresses ({@code http://host:8080} or {@code https://...}), tried in turn: a
         * connection failure or an {@code UNAVAILABLE} answer moves the client to the next one.
         */
        public Builder baseUrls(String... urls) {
            return baseUrls(List.of(urls));
        }

        /** As {@link #baseUrls(String...)}. */
        public Builder baseUrls(List<String> urls) {
            this.baseUrls = List.copyOf(urls);
            return this;
        }

        /** The bearer token: an app's token (it acts on its own app) or the admin token. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** How long a connection may take to open (default 5 s). */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive(connectTimeout, "connectTimeout");
            return this;
        }

        /**
         * How long a call may take to be answered (default 30 s); a reserve's long poll adds its
         * {@code waitMs}.
         */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = positive(requestTimeout, "requestTimeout");
            return this;
        }

        /** The TLS context for {@code https} base URLs (default: the JVM's). */
        public Builder sslContext(SSLContext sslContext) {
            this.sslContext = sslContext;
            return this;
        }

        /** Where the HTTP client runs its work and completes the async calls (default: its own pool). */
        public Builder executor(Executor executor) {
            this.executor = executor;
            return this;
        }

        /** The mapper of {@link #toPayload} and {@link #payload}: the caller's, with its modules. */
        public Builder objectMapper(ObjectMapper objectMapper) {
            this.objectMapper = java.util.Objects.requireNonNull(objectMapper, "objectMapper");
            return this;
        }

        /**
         * Tries per call, the first included (default 3; 1 turns retries off), and the backoff
         * between them when the node gives no {@code Retry-After}: {@code initialBackoff}, doubled
         * after each failure up to {@code maxBackoff}, with jitter (defaults 200 ms and 5 s).
         */
        public Builder retries(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
            this.retries = new RetryRule(maxAttempts, initialBackoff, maxBackoff, retries.maxRetryAfter());
            return this;
        }

        /**
         * The longest {@code Retry-After} the client waits out by itself (default 30 s); a call told
         * to wait longer fails at once with the wait in {@link HourglassException#retryAfterMs()}.
         */
        public Builder maxRetryAfter(Duration maxRetryAfter) {
            this.retries =
                    new RetryRule(retries.maxAttempts(), retries.initialBackoff(), retries.maxBackoff(), maxRetryAfter);
            return this;
        }

        /**
         * Gives each submitted job without a bizKey one of the client's ({@code hgc-} and a random
         * UUID), so that a submit whose answer was lost can be sent again without a second job
         * (default off: the bizKey is the job's for good, and it keys its Kafka records).
         */
        public Builder generateBizKeys(boolean generateBizKeys) {
            this.generateBizKeys = generateBizKeys;
            return this;
        }

        /** Told of every call when it ends: its operation, time, sends and outcome (metrics). */
        public Builder observer(ClientObserver observer) {
            this.observer = java.util.Objects.requireNonNull(observer, "observer");
            return this;
        }

        /** The client. */
        public HourglassClient build() {
            return new HourglassClient(this);
        }

        private static Duration positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive");
            }
            return d;
        }
    }

    /** Submits one job; its view as stored (201), or the job stored before with its bizKey (200). */
    public JobView submit(JobSubmission job) {
        return join(submitAsync(job));
    }

    /** {@link #submit}, without waiting. */
    public CompletableFuture<JobView> submitAsync(JobSubmission job) {
        ObjectNode body = submissionJson(job);
        return call("submit", body.hasNonNull("bizKey"), "POST", "api/v1/jobs", body, timeout)
                .thenApply(HourglassClient::jobView);
    }

    /**
     * Submits up to 1,000 jobs in one call. One entry per job, in order: the job, or the error
     * that refused it (the others are stored all the same). A database failure fails the whole
     * batch, and then nothing of it was stored.
     */
    public List<BatchItemResult> submitBatch(List<JobSubmission> jobs) {
        return join(submitBatchAsync(jobs));
    }

    /** {@link #submitBatch}, without waiting. */
    public CompletableFuture<List<BatchItemResult>> submitBatchAsync(List<JobSubmission> jobs) {
        ObjectNode body = json.createObjectNode();
        ArrayNode items = body.putArray("jobs");
        boolean everyOneKeyed = true;
        for (JobSubmission job : jobs) {
            ObjectNode item = submissionJson(job);
            everyOneKeyed &= item.hasNonNull("bizKey");
            items.add(item);
        }
        return call("submitBatch", everyOneKeyed, "POST", "api/v1/jobs/batch", body, timeout)
                .thenApply(answer -> {
                    List<BatchItemResult> results = new ArrayList<>();
                    answer.path("results").forEach(r -> results.add(batchItem(r)));
                    return results;
                });
    }

    /** One job of the token's app by id, live or final; {@code NOT_FOUND} when there is none. */
    public JobView get(String jobId) {
        return join(getAsync(jobId));
    }

    /** {@link #get}, without waiting. */
    public CompletableFuture<JobView> getAsync(String jobId) {
        return call("get", true, "GET", "api/v1/jobs/" + jobId, null, timeout).thenApply(HourglassClient::jobView);
    }

    /** The app's job with this bizKey, live or final, if there is one. */
    public Optional<JobView> getByBizKey(String bizKey) {
        JobPage page = search(new JobSearch().bizKey(bizKey).limit(1));
        return page.items().stream().findFirst();
    }

    /** One page of the app's jobs that match {@code search}. */
    public JobPage search(JobSearch search) {
        return join(searchAsync(search));
    }

    /** {@link #search}, without waiting. */
    public CompletableFuture<JobPage> searchAsync(JobSearch search) {
        return call("search", true, "GET", "api/v1/jobs" + search.query(), null, timeout)
                .thenApply(answer -> {
                    List<JobView> jobs = new ArrayList<>();
                    answer.path("items").forEach(item -> jobs.add(jobView(item)));
                    JsonNode next = answer.path("nextCursor");
                    return new JobPage(jobs, next.isTextual() ? next.asText() : null);
                });
    }

    /** The job's attempts, oldest first: who sent each, when, how late, and how it ended. */
    public List<ExecutionView> executions(String jobId) {
        return join(call("executions", true, "GET", "api/v1/jobs/" + jobId + "/executions", null, timeout)
                .thenApply(answer -> {
                    List<ExecutionView> attempts = new ArrayList<>();
                    answer.path("items").forEach(item -> attempts.add(execution(item)));
                    return attempts;
                }));
    }

    /**
     * Changes a DELAYED job: its fire time ({@code fireAt}, or {@code delayMs} from now), payload or
     * attributes; {@code CONFLICT} in any other state.
     */
    public JobView reschedule(String jobId, JobChange change) {
        ObjectNode body = json.createObjectNode();
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
            body.set("attributes", json.valueToTree(change.getAttributes()));
        }
        return join(call("reschedule", false, "PATCH", "api/v1/jobs/" + jobId, body, timeout)
                .thenApply(HourglassClient::jobView));
    }

    /** Cancels a DELAYED or RUNNING job (see docs/api.md for an attempt already under way); the job, CANCELED. */
    public JobView cancel(String jobId) {
        return join(call("cancel", false, "DELETE", "api/v1/jobs/" + jobId, null, timeout)
                .thenApply(HourglassClient::jobView));
    }

    /** Fires a DELAYED job now. */
    public JobView fireNow(String jobId) {
        return join(call("fireNow", false, "POST", "api/v1/jobs/" + jobId + "/fire", null, timeout)
                .thenApply(HourglassClient::jobView));
    }

    /**
     * A FAILED, CANCELED or EXPIRED job back to DELAYED with a fresh budget of attempts, due at
     * {@code fireAt} (null: now).
     */
    public JobView retry(String jobId, Instant fireAt) {
        ObjectNode body = json.createObjectNode();
        if (fireAt != null) {
            body.put("fireAt", fireAt.toEpochMilli());
        }
        return join(call("retry", false, "POST", "api/v1/jobs/" + jobId + "/retry", body, timeout)
                .thenApply(HourglassClient::jobView));
    }

    /** The result of the current attempt ({@code report.getJobId()} is not read: {@code jobId} names the job). */
    public JobView reportResult(String jobId, ResultReport report) {
        ObjectNode body = resultJson(report);
        return join(call("reportResult", false, "POST", "api/v1/jobs/" + jobId + "/result", body, timeout)
                .thenApply(HourglassClient::jobView));
    }

    /**
     * Reserves up to {@code request.getMax()} ready jobs of the request's services, in the order
     * given. With {@code waitMs} the node holds the call up to that long when none is ready, and an
     * empty list means none came; the call's timeout is this client's timeout plus {@code waitMs}.
     */
    public List<Reservation> reserve(ReserveRequest request) {
        return join(reserveAsync(request));
    }

    /** {@link #reserve}, without waiting. */
    public CompletableFuture<List<Reservation>> reserveAsync(ReserveRequest request) {
        ObjectNode body = json.createObjectNode();
        if (request.getServices() != null) {
            body.set("services", json.valueToTree(request.getServices()));
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
        // a reservation whose answer was lost costs its TTR: not sent again unless refused or unsent
        return call("reserve", false, "POST", "api/v1/reserve", body, callTimeout)
                .thenApply(answer -> {
                    List<Reservation> reservations = new ArrayList<>();
                    answer.path("items").forEach(item -> reservations.add(reservation(item)));
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

    /** {@link #reportResults}, without waiting. */
    public CompletableFuture<List<ResultAnswer>> reportResultsAsync(List<ResultReport> results) {
        ObjectNode body = json.createObjectNode();
        ArrayNode items = body.putArray("results");
        for (ResultReport report : results) {
            items.addObject().put("jobId", report.getJobId()).setAll(resultJson(report));
        }
        return call("reportResults", false, "POST", "api/v1/results", body, timeout)
                .thenApply(answer -> {
                    List<ResultAnswer> answers = new ArrayList<>();
                    answer.path("results").forEach(a -> answers.add(resultAnswer(a)));
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

    /** {@link #touch}, without waiting. */
    public CompletableFuture<Reservation> touchAsync(String jobId, int attempt, long ttrMs) {
        ObjectNode body = json.createObjectNode().put("attempt", attempt).put("ttrMs", ttrMs);
        return call("touch", false, "POST", "api/v1/jobs/" + jobId + "/touch", body, timeout)
                .thenApply(HourglassClient::reservation);
    }

    /**
     * Whether the node this client calls now answers {@code GET /health/ready} with 200 within
     * {@code within} (no token, no retry, no other address tried): false when it does not, or
     * cannot be reached. For health checks; a call's own failure says more about that call.
     */
    public boolean nodeReady(Duration within) {
        URI base = bases.get(Math.floorMod(preferred.get(), bases.size()));
        HttpRequest request = HttpRequest.newBuilder(base.resolve("health/ready"))
                .timeout(within)
                .GET()
                .build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The base URL this client calls now: the first, or the one it moved on to after a failure. */
    public String currentBaseUrl() {
        return bases.get(Math.floorMod(preferred.get(), bases.size())).toString();
    }

    /** {@code value} as a job's payload (JSON text), through this client's {@link ObjectMapper}. */
    public String toPayload(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new HourglassException(
                    ErrorCode.INVALID_ARGUMENT,
                    "the payload cannot be written as JSON: " + e.getOriginalMessage(),
                    null,
                    null,
                    e);
        }
    }

    /** The job's payload read as {@code type} through this client's {@link ObjectMapper}. */
    public <T> T payload(JobView job, Class<T> type) {
        try {
            return json.readValue(job.getPayload(), type);
        } catch (JsonProcessingException e) {
            throw new HourglassException(
                    ErrorCode.INVALID_ARGUMENT,
                    "job " + job.getId() + "'s payload does not read as " + type.getName() + ": "
                            + e.getOriginalMessage(),
                    null,
                    null,
                    e);
        }
    }

    /** A result without its job id, as both result endpoints take it; null fields are left out. */
    private ObjectNode resultJson(ResultReport report) {
        ObjectNode body = json.createObjectNode();
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

    private ObjectNode submissionJson(JobSubmission job) {
        ObjectNode body = json.createObjectNode();
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
        } else if (generateBizKeys) {
            body.put("bizKey", GENERATED_BIZ_KEY_PREFIX + UUID.randomUUID());
        }
        if (job.getAttributes() != null && !job.getAttributes().isEmpty()) {
            body.set("attributes", json.valueToTree(job.getAttributes()));
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

    private JsonNode parse(String text) {
        try {
            return json.readTree(text);
        } catch (IOException e) {
            throw new HourglassException(
                    ErrorCode.INVALID_ARGUMENT, "payload is not JSON text: " + e.getMessage(), "payload", null, e);
        }
    }

    /**
     * One call, sent again by the retry rule ({@link RetryRule}) when that is safe: {@code
     * repeatable} says whether sending it twice is harmless.
     */
    private CompletableFuture<JsonNode> call(
            String operation, boolean repeatable, String method, String path, JsonNode body, Duration callTimeout) {
        Retry retry = repeatable ? this.repeatable : once;
        long started = System.nanoTime();
        AtomicInteger sends = new AtomicInteger();
        CompletableFuture<JsonNode> answer = Retry.decorateCompletionStage(retry, RetryTimer.INSTANCE, () -> {
                    sends.incrementAndGet();
                    return sendOnce(method, path, body, callTimeout);
                })
                .get()
                .toCompletableFuture();
        if (observer == ClientObserver.NONE) {
            return answer;
        }
        return answer.whenComplete(
                (ok, error) -> observe(operation, Duration.ofNanos(System.nanoTime() - started), sends.get(), error));
    }

    /**
     * Tells the observer; an observer that throws is logged and otherwise ignored: a metric must
     * never turn a call that succeeded into a failure its caller might send again.
     */
    private void observe(String operation, Duration took, int sends, Throwable error) {
        try {
            observer.callEnded(operation, took, sends, error == null ? null : codeOf(error));
        } catch (RuntimeException e) {
            System.getLogger(HourglassClient.class.getName())
                    .log(System.Logger.Level.WARNING, "the client's observer failed on " + operation, e);
        }
    }

    /** The API error code a failed call ends with; anything but a refusal is an unknown outcome. */
    private static ErrorCode codeOf(Throwable error) {
        return RetryRule.unwrap(error) instanceof HourglassException e ? e.code() : ErrorCode.INTERNAL;
    }

    private CompletableFuture<JsonNode> sendOnce(String method, String path, JsonNode body, Duration callTimeout) {
        int at = preferred.get();
        URI base = bases.get(Math.floorMod(at, bases.size()));
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
                    HourglassException failure = error != null
                            ? new HourglassException(
                                    ErrorCode.UNAVAILABLE,
                                    "Hourglass at " + base + " is not reachable: " + RetryRule.unwrap(error),
                                    null,
                                    null,
                                    RetryRule.unwrap(error))
                            : response.statusCode() >= 400 ? refusal(response) : null;
                    if (failure != null) {
                        if (bases.size() > 1 && RetryRule.isTransportOrUnavailable(failure)) {
                            // the next address, for this call's retry and the calls after it
                            preferred.compareAndSet(at, at + 1);
                        }
                        throw failure;
                    }
                    return readJson(response.body());
                });
    }

    /** The node's error answer as an exception: its code, message, field, and Retry-After. */
    private static HourglassException refusal(HttpResponse<String> response) {
        JsonNode e = readJson(response.body()).path("error");
        return new HourglassException(
                codeOf(e.path("code").asText(), response.statusCode()),
                e.path("message").asText("HTTP " + response.statusCode()),
                e.path("field").isTextual() ? e.get("field").asText() : null,
                response.headers()
                        .firstValue("Retry-After")
                        .map(HourglassClient::retryAfterMs)
                        .orElse(null),
                null);
    }

    /** Retry-After in delay-seconds (what the node sends); an HTTP date or garbage is ignored. */
    private static Long retryAfterMs(String value) {
        try {
            return Math.max(0, Long.parseLong(value.trim())) * 1_000;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static JsonNode readJson(String text) {
        try {
            return text == null || text.isEmpty() ? READER.createObjectNode() : READER.readTree(text);
        } catch (IOException e) {
            return READER.createObjectNode();
        }
    }

    /**
     * The API's code, or for an answer without one (a proxy's) the status's: a 503 said no node was
     * there to take the call, but a 502 or 504 may come after the call was passed on, so its
     * outcome is unknown, as for INTERNAL.
     */
    private static ErrorCode codeOf(String code, int status) {
        for (ErrorCode c : ErrorCode.values()) {
            if (c.name().equals(code) || (code.isEmpty() && c.httpStatus() == status)) {
                return c;
            }
        }
        return status >= 500 ? ErrorCode.INTERNAL : ErrorCode.INVALID_ARGUMENT;
    }

    private static BatchItemResult batchItem(JsonNode n) {
        JsonNode error = n.path("error");
        if (error.isObject()) {
            return new BatchItemResult()
                    .setErrorCode(codeOf(error.path("code").asText(), ErrorCode.INVALID_ARGUMENT.httpStatus()))
                    .setErrorMessage(error.path("message").asText(null))
                    .setErrorField(
                            error.path("field").isTextual() ? error.get("field").asText() : null);
        }
        return new BatchItemResult().setJob(jobView(n.path("job")));
    }

    private static ExecutionView execution(JsonNode n) {
        return new ExecutionView()
                .setAttempt(n.path("attempt").asInt())
                .setNode(n.path("node").asText(null))
                .setFiredAt(
                        n.path("firedAt").isTextual()
                                ? Instant.parse(n.get("firedAt").asText())
                                : null)
                .setFinishedAt(
                        n.path("finishedAt").isTextual()
                                ? Instant.parse(n.get("finishedAt").asText())
                                : null)
                .setLatenessMs(n.path("latenessMs").asLong())
                .setOutcome(n.path("outcome").isTextual() ? n.get("outcome").asText() : null)
                .setMessage(n.path("message").isTextual() ? n.get("message").asText() : null);
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
            throw new HourglassException(ErrorCode.UNAVAILABLE, String.valueOf(e.getCause()), null, null, e.getCause());
        }
    }
}
