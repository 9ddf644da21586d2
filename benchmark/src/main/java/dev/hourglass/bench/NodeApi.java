package dev.hourglass.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The few API calls the benchmark makes.
 *
 * <p>Not the tests' {@code ApiClient} (scheduler-node's test-jar), a blocking client that returns
 * each answer's status to assert on: the burst and pending workloads keep many batch submits in
 * flight from one thread ({@link #sendAsync}), {@link #call} fails on an error status instead, and
 * this one also reads the node's {@code /metrics}.
 */
final class NodeApi {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String base;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    NodeApi(String base) {
        this.base = base;
    }

    CompletableFuture<HttpResponse<String>> sendAsync(String method, String path, String token, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    JsonNode call(String method, String path, String token, String body) {
        HttpResponse<String> r = sendAsync(method, path, token, body).join();
        if (r.statusCode() >= 400) {
            throw new IllegalStateException(method + " " + path + " -> " + r.statusCode() + " " + r.body());
        }
        try {
            return r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The sums of the node's claim metrics (/metrics): claim transactions, seconds spent in them,
     * jobs they claimed; subtract two readings to get a workload's share.
     */
    double[] claims() {
        String text = sendAsync("GET", "/metrics", null, null).join().body();
        double[] sums = new double[3];
        String[] names = {"hourglass_claim_seconds_count", "hourglass_claim_seconds_sum", "hourglass_claim_jobs_sum"};
        for (String line : text.split("\n")) {
            for (int i = 0; i < names.length; i++) {
                if (line.startsWith(names[i] + " ") || line.startsWith(names[i] + "{")) {
                    sums[i] += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        }
        return sums;
    }

    /**
     * The node's hand-out lateness of one PULL service (/metrics, {@code
     * hourglass_pull_handout_lateness_seconds}): the reservations it answered within each bucket
     * bound, cumulative, by the bound in ms ({@code +Inf} as {@link Long#MAX_VALUE}); empty when it
     * answered none.
     */
    TreeMap<Long, Long> handOutLateness(String service) {
        String text = sendAsync("GET", "/metrics", null, null).join().body();
        String prefix = "hourglass_pull_handout_lateness_seconds_bucket{";
        String ofService = "service=\"" + service + "\"";
        TreeMap<Long, Long> within = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith(prefix) && line.contains(ofService)) {
                int le = line.indexOf("le=\"") + 4;
                String bound = line.substring(le, line.indexOf('"', le));
                long ms = bound.equals("+Inf") ? Long.MAX_VALUE : Math.round(Double.parseDouble(bound) * 1_000);
                long count = (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                within.merge(ms, count, Long::sum);
            }
        }
        return within;
    }

    /** Live heap after the last GC, and heap in use now, from the node's /metrics (bytes). */
    long[] heap() {
        String text = sendAsync("GET", "/metrics", null, null).join().body();
        long used = 0;
        long live = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                used += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            } else if (line.startsWith("jvm_gc_live_data_size_bytes")) {
                live = (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return new long[] {live, used};
    }
}
