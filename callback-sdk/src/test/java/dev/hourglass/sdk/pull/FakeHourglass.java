package dev.hourglass.sdk.pull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.hourglass.api.Iso8601;
import dev.hourglass.api.JobState;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory Hourglass node speaking the pull consumers' HTTP contract, on the JDK's HTTP server
 * at 127.0.0.1 and a free port: reserve (with the long poll), the batch of results, touch, and the
 * single result. A reservation is an attempt with a deadline; past it the attempt is timed out and
 * the job ready again, and a result or touch naming any attempt but the current one gets 409.
 *
 * <p>Records what it was sent, for the tests to assert on, and injects one fault: {@link
 * #failNextResults(int)} answers that many batches of results with 503. Thread-safe: one lock over
 * all state; a long poll waits on it.
 */
final class FakeHourglass implements AutoCloseable {
    static final String TOKEN = "test-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One item of a batch of results, as sent, and whether it was accepted. */
    record ResultItem(String jobId, int attempt, String status, JsonNode sent, boolean accepted) {}

    record Touch(String jobId, int attempt, long ttrMs, boolean accepted) {}

    private static final class Job {
        final String id;
        final String service;
        final String payload;
        final long createdAt = System.currentTimeMillis();
        JobState state = JobState.DELAYED;
        boolean ready = true;
        int attempt;
        long deadline;

        Job(String id, String service, String payload) {
            this.id = id;
            this.service = service;
            this.payload = payload;
        }
    }

    private final HttpServer server;
    private final ExecutorService threads;
    private final Object lock = new Object();
    private final Map<String, Job> jobs = new LinkedHashMap<>();
    private final List<JsonNode> reserveBodies = new ArrayList<>();
    private final List<List<ResultItem>> resultPosts = new ArrayList<>();
    private final List<Touch> touches = new ArrayList<>();
    private int failResults;
    private int waitingPolls;
    private long nextId = 7_241_108_011_483_136L;

    private FakeHourglass() throws IOException {
        AtomicInteger n = new AtomicInteger();
        threads = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "fake-hourglass-" + n.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(threads);
        server.createContext("/api/v1/", this::serve);
        server.start();
    }

    static FakeHourglass start() throws IOException {
        return new FakeHourglass();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() throws InterruptedException {
        server.stop(0);
        threads.shutdownNow(); // ends the long polls still waiting
        threads.awaitTermination(5, TimeUnit.SECONDS);
    }

    // ---- the test's side

    String addJob(String service, String payloadJson) {
        synchronized (lock) {
            String id = String.valueOf(nextId++);
            jobs.put(id, new Job(id, service, payloadJson));
            lock.notifyAll();
            return id;
        }
    }

    JobState state(String jobId) {
        synchronized (lock) {
            Job job = jobs.get(jobId);
            expireIfDue(job);
            return job.state;
        }
    }

    int attempt(String jobId) {
        synchronized (lock) {
            return jobs.get(jobId).attempt;
        }
    }

    /** The current reservation of the job times out now, as if its deadline had passed. */
    void expire(String jobId) {
        synchronized (lock) {
            Job job = jobs.get(jobId);
            job.deadline = System.currentTimeMillis() - 1;
            expireIfDue(job);
        }
    }

    void failNextResults(int batches) {
        synchronized (lock) {
            failResults = batches;
        }
    }

    int waitingPolls() {
        synchronized (lock) {
            return waitingPolls;
        }
    }

    /** Jobs a reserve would hand out now. */
    int readyCount() {
        synchronized (lock) {
            jobs.values().forEach(this::expireIfDue);
            return (int) jobs.values().stream().filter(job -> job.ready).count();
        }
    }

    List<JsonNode> reserveBodies() {
        synchronized (lock) {
            return List.copyOf(reserveBodies);
        }
    }

    /** Every batch of results that reached the node, including those it answered 503. */
    List<List<ResultItem>> resultPosts() {
        synchronized (lock) {
            return List.copyOf(resultPosts);
        }
    }

    List<ResultItem> results(String jobId) {
        synchronized (lock) {
            return resultPosts.stream()
                    .flatMap(List::stream)
                    .filter(r -> r.jobId().equals(jobId))
                    .toList();
        }
    }

    List<Touch> touches(String jobId) {
        synchronized (lock) {
            return touches.stream().filter(t -> t.jobId().equals(jobId)).toList();
        }
    }

    // ---- the HTTP side

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!("Bearer " + TOKEN).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                answer(exchange, 401, error("UNAUTHENTICATED", "bad token", null));
                return;
            }
            JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
            String path = exchange.getRequestURI().getPath();
            String[] parts = path.split("/"); // "", "api", "v1", ...
            if (!"POST".equals(exchange.getRequestMethod())) {
                answer(exchange, 405, error("INVALID_ARGUMENT", "POST only here", null));
            } else if (path.equals("/api/v1/reserve")) {
                answer(exchange, 200, reserve(body));
            } else if (path.equals("/api/v1/results")) {
                results(exchange, body);
            } else if (parts.length == 6 && parts[3].equals("jobs") && parts[5].equals("touch")) {
                touch(exchange, parts[4], body);
            } else if (parts.length == 6 && parts[3].equals("jobs") && parts[5].equals("result")) {
                singleResult(exchange, parts[4], body);
            } else {
                answer(exchange, 404, error("NOT_FOUND", "no route " + path, null));
            }
        }
    }

    private ObjectNode reserve(JsonNode body) {
        List<String> services = new ArrayList<>();
        body.path("services").forEach(s -> services.add(s.asText()));
        int max = body.path("max").asInt(1);
        long ttrMs = body.path("ttrMs").asLong(30_000);
        long waitMs = body.path("waitMs").asLong(0);
        ObjectNode answer = JSON.createObjectNode();
        ArrayNode items = answer.putArray("items");
        synchronized (lock) {
            reserveBodies.add(body);
            long end = System.currentTimeMillis() + waitMs;
            List<Job> reserved = take(services, max, ttrMs);
            try {
                while (reserved.isEmpty() && System.currentTimeMillis() < end) {
                    waitingPolls++;
                    try {
                        lock.wait(Math.max(1, end - System.currentTimeMillis()));
                    } finally {
                        waitingPolls--;
                    }
                    reserved = take(services, max, ttrMs);
                }
            } catch (InterruptedException stopping) {
                Thread.currentThread().interrupt();
            }
            reserved.forEach(job -> items.add(reservationJson(job)));
        }
        return answer;
    }

    /** Ready jobs of the services, the first service first; caller holds the lock. */
    private List<Job> take(List<String> services, int max, long ttrMs) {
        jobs.values().forEach(this::expireIfDue);
        List<Job> taken = new ArrayList<>();
        for (String service : services) {
            for (Job job : jobs.values()) {
                if (taken.size() < max && job.ready && job.service.equals(service)) {
                    job.ready = false;
                    job.state = JobState.RUNNING;
                    job.attempt++;
                    job.deadline = System.currentTimeMillis() + ttrMs;
                    taken.add(job);
                }
            }
        }
        return taken;
    }

    private void results(HttpExchange exchange, JsonNode body) throws IOException {
        ObjectNode answer = JSON.createObjectNode();
        ArrayNode answers = answer.putArray("results");
        boolean fail;
        synchronized (lock) {
            fail = failResults > 0;
            List<ResultItem> post = new ArrayList<>();
            for (JsonNode item : body.path("results")) {
                ObjectNode one = fail ? null : apply(item.path("jobId").asText(), item);
                post.add(new ResultItem(
                        item.path("jobId").asText(),
                        item.path("attempt").asInt(),
                        item.path("status").asText(),
                        item,
                        one != null && one.has("state")));
                if (one != null) {
                    answers.add(one);
                }
            }
            resultPosts.add(post);
            if (fail) {
                failResults--;
            }
        }
        if (fail) {
            answer(exchange, 503, error("UNAVAILABLE", "the node is busy (injected)", null));
        } else {
            answer(exchange, 200, answer);
        }
    }

    private void singleResult(HttpExchange exchange, String jobId, JsonNode body) throws IOException {
        ObjectNode one;
        synchronized (lock) {
            one = apply(jobId, body);
            resultPosts.add(List.of(new ResultItem(
                    jobId, body.path("attempt").asInt(), body.path("status").asText(), body, one.has("state"))));
        }
        if (one.has("error")) {
            answer(exchange, one.path("error").path("code").asText().equals("CONFLICT") ? 409 : 404, one);
        } else {
            synchronized (lock) {
                answer(exchange, 200, jobJson(jobs.get(jobId)));
            }
        }
    }

    /** One result, conditional on its attempt; caller holds the lock. */
    private ObjectNode apply(String jobId, JsonNode item) {
        int attempt = item.path("attempt").asInt();
        ObjectNode answer = JSON.createObjectNode().put("jobId", jobId).put("attempt", attempt);
        Job job = jobs.get(jobId);
        if (job == null) {
            return answer.setAll(error("NOT_FOUND", "no job " + jobId, null));
        }
        expireIfDue(job);
        if (job.state != JobState.RUNNING || job.attempt != attempt) {
            return answer.setAll(error("CONFLICT", "attempt " + attempt + " is not current", "attempt"));
        }
        switch (item.path("status").asText()) {
            case "SUCCESS" -> job.state = JobState.FINISHED;
            case "FAIL" -> job.state = JobState.FAILED;
            case "RETRY" -> job.state = JobState.DELAYED; // due after its backoff: not again in a test
            case "RELEASE" -> {
                job.state = JobState.DELAYED;
                job.ready = item.path("delayMs").asLong(0) == 0;
                lock.notifyAll();
            }
            default -> {
                return answer.setAll(error("INVALID_ARGUMENT", "bad status", "status"));
            }
        }
        return answer.put("state", job.state.name());
    }

    private void touch(HttpExchange exchange, String jobId, JsonNode body) throws IOException {
        int attempt = body.path("attempt").asInt();
        long ttrMs = body.path("ttrMs").asLong();
        synchronized (lock) {
            Job job = jobs.get(jobId);
            if (job == null) {
                answer(exchange, 404, error("NOT_FOUND", "no job " + jobId, null));
                return;
            }
            expireIfDue(job);
            boolean current = job.state == JobState.RUNNING && job.attempt == attempt;
            touches.add(new Touch(jobId, attempt, ttrMs, current));
            if (!current) {
                answer(exchange, 409, error("CONFLICT", "attempt " + attempt + " is not current", "attempt"));
                return;
            }
            job.deadline = System.currentTimeMillis() + ttrMs;
            answer(exchange, 200, reservationJson(job));
        }
    }

    /** A reservation whose deadline passed is a timed-out attempt: the job is ready again. */
    private void expireIfDue(Job job) {
        if (job != null && job.state == JobState.RUNNING && System.currentTimeMillis() > job.deadline) {
            job.state = JobState.DELAYED;
            job.ready = true;
            lock.notifyAll();
        }
    }

    private ObjectNode reservationJson(Job job) {
        return jobJson(job).put("attempt", job.attempt).put("deadline", Iso8601.format(job.deadline));
    }

    private ObjectNode jobJson(Job job) {
        ObjectNode json = JSON.createObjectNode()
                .put("id", job.id)
                .put("app", "shop")
                .put("service", job.service)
                .putNull("bizKey")
                .put("state", job.state.name())
                .put("fireAt", Iso8601.format(job.createdAt))
                .put("createdAt", Iso8601.format(job.createdAt))
                .put("updatedAt", Iso8601.format(System.currentTimeMillis()))
                .put("attempts", job.attempt)
                .put("maxAttempts", 5)
                .put("timeoutMs", 30_000)
                .putNull("expireAfterMs");
        try {
            json.set("payload", JSON.readTree(job.payload));
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
        json.putObject("attributes");
        json.putNull("lastError");
        json.put("shard", 3);
        return json;
    }

    private static ObjectNode error(String code, String message, String field) {
        ObjectNode answer = JSON.createObjectNode();
        ObjectNode error = answer.putObject("error").put("code", code).put("message", message);
        if (field != null) {
            error.put("field", field);
        }
        return answer;
    }

    private static void answer(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
