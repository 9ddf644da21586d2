package dev.hourglass.node.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.node.testing.RunsPaired;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 1,000 pull consumers waiting in a long poll on one node (a standalone node process, as a new user
 * runs it): the node holds them without a thread each (Jetty's async requests) and without a
 * database query each; a job submitted meanwhile goes to one of them at once; the rest are answered
 * empty when their wait runs out. The node's threads and heap are printed for the notes.
 */
@RunsPaired
class IdleLongPollsIT {
    static final int WAITERS = 1_000;
    /**
     * Long enough for all of them to be waiting at once: with Java's default accept backlog (50),
     * opening 1,000 connections took up to 8 s here and some failed; with the node's 1,024, about
     * 0.8 s.
     */
    static final long WAIT_MS = 10_000;

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    NodeProcess node;
    ApiClient admin;
    ApiClient app;

    @BeforeEach
    void start() throws Exception {
        Path data = dir.resolve("data");
        node = NodeProcess.startStandalone("idle-polls", data, "", false).awaitReady();
        admin = node.admin();
        String token = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText();
        app = admin.as(token);
        assertThat(app.put("/api/v1/services/work", "{\"protocol\":\"PULL\"}").status())
                .isEqualTo(200);
    }

    @AfterEach
    void stop() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    /** A gauge of the node's /metrics (the sum over its series). */
    private double metric(String name) {
        String text = admin.get("/metrics").text();
        double sum = 0;
        boolean found = false;
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? ([0-9.eE+-]+)$")
                .matcher(text);
        while (m.find()) {
            sum += Double.parseDouble(m.group(2));
            found = true;
        }
        assertThat(found).as("metric %s on /metrics", name).isTrue();
        return sum;
    }

    @Test
    void aThousandIdleLongPollsHoldNoThreadEachAndOneOfThemGetsAJobSubmittedMeanwhile() throws Exception {
        double threadsBefore = metric("jvm_threads_live_threads");
        double heapBefore = metric("jvm_memory_used_bytes") / 1e6;
        ExecutorService clientThreads = Executors.newFixedThreadPool(4);
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .executor(clientThreads)
                .build();
        try {
            HttpRequest reserve = HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/v1/reserve"))
                    .header("Authorization", "Bearer " + app.token())
                    .header("Content-Type", "application/json")
                    .timeout(Duration.ofMillis(WAIT_MS + 20_000))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"services\":[\"work\"],\"waitMs\":" + WAIT_MS + "}"))
                    .build();
            long sentAt = System.currentTimeMillis();
            List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                polls.add(http.sendAsync(reserve, HttpResponse.BodyHandlers.ofString()));
            }
            try {
                await().atMost(Duration.ofMillis(WAIT_MS - 1_000))
                        .until(() -> metric("hourglass_pull_waiting"), w -> w == WAITERS);
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                long done = polls.stream().filter(CompletableFuture::isDone).count();
                String sample = polls.stream()
                        .filter(CompletableFuture::isDone)
                        .limit(3)
                        .map(p -> p.handle((r, t) -> t != null ? t.toString() : r.statusCode() + " " + r.body())
                                .join())
                        .toList()
                        .toString();
                throw new AssertionError(
                        "waiting: " + metric("hourglass_pull_waiting") + ", answered: " + done + " " + sample
                                + "; node warnings: " + node.warnings(20),
                        e);
            }
            long allWaitingAfter = System.currentTimeMillis() - sentAt;
            double threadsWaiting = metric("jvm_threads_live_threads");
            double heapWaiting = metric("jvm_memory_used_bytes") / 1e6;
            assertThat(polls).noneMatch(CompletableFuture::isDone);

            long submittedAt = System.currentTimeMillis();
            String id = app.post("/api/v1/jobs", "{\"service\":\"work\",\"delayMs\":0,\"payload\":{}}")
                    .json()
                    .get("id")
                    .asText();
            CompletableFuture<Object> first = CompletableFuture.anyOf(polls.toArray(CompletableFuture[]::new));
            first.get(5, TimeUnit.SECONDS);
            long gotAfter = System.currentTimeMillis() - submittedAt;

            CompletableFuture.allOf(polls.toArray(CompletableFuture[]::new))
                    .get(WAIT_MS + 20_000, TimeUnit.MILLISECONDS);
            long allAfter = System.currentTimeMillis() - sentAt;
            int withJob = 0;
            int empty = 0;
            for (CompletableFuture<HttpResponse<String>> p : polls) {
                HttpResponse<String> r = p.get();
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                JsonNode items = JSON.readTree(r.body()).get("items");
                if (items.isEmpty()) {
                    empty++;
                } else {
                    assertThat(items).hasSize(1);
                    assertThat(items.get(0).get("id").asText()).isEqualTo(id);
                    withJob++;
                }
            }
            System.out.printf(
                    "PULL-IDLE %d long polls (all waiting %d ms after they were sent): node threads %.0f before, %.0f while they wait; heap used %.0f MB before,"
                            + " %.0f MB while they wait; a job submitted meanwhile reached one in %d ms; all answered"
                            + " after %d ms (wait %d ms)%n",
                    WAITERS,
                    allWaitingAfter,
                    threadsBefore,
                    threadsWaiting,
                    heapBefore,
                    heapWaiting,
                    gotAfter,
                    allAfter,
                    WAIT_MS);
            assertThat(withJob)
                    .as("the job went to exactly one waiting consumer")
                    .isEqualTo(1);
            assertThat(empty).isEqualTo(WAITERS - 1);
            // Jetty's pool has at most 250 threads (Javalin's default): 1,000 consumers waiting at
            // once, all of them counted as waiting by the node, cannot each hold one
            assertThat(threadsWaiting)
                    .as("fewer threads on the node than consumers waiting in it")
                    .isLessThan(WAITERS / 2.0);
            assertThat(gotAfter)
                    .as("the waiter is woken at once, not at the end of its wait")
                    .isLessThan(2_000);
            assertThat(allAfter)
                    .as("the others answered when their wait ran out")
                    .isGreaterThanOrEqualTo(WAIT_MS);
            await().atMost(Duration.ofSeconds(5)).until(() -> metric("hourglass_pull_waiting") == 0);
        } finally {
            clientThreads.shutdownNow();
        }
    }
}
