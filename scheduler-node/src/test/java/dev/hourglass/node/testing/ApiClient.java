package dev.hourglass.node.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** A thin HTTP client of the node's API for tests: raw status and parsed JSON. */
public final class ApiClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    public record Answer(int status, String text) {
        public JsonNode json() {
            try {
                return JSON.readTree(text);
            } catch (IOException e) {
                throw new AssertionError("not JSON (" + status + "): " + text, e);
            }
        }

        public String errorCode() {
            return json().path("error").path("code").asText(null);
        }

        public String errorField() {
            return json().path("error").path("field").asText(null);
        }
    }

    private final String base;
    private final String token;

    public ApiClient(String base, String token) {
        this.base = base;
        this.token = token;
    }

    public String token() {
        return token;
    }

    public ApiClient as(String otherToken) {
        return new ApiClient(base, otherToken);
    }

    public Answer get(String path) {
        return send("GET", path, null);
    }

    public Answer post(String path, String body) {
        return send("POST", path, body);
    }

    public Answer put(String path, String body) {
        return send("PUT", path, body);
    }

    public Answer patch(String path, String body) {
        return send("PATCH", path, body);
    }

    public Answer delete(String path) {
        return send("DELETE", path, null);
    }

    public Answer send(String method, String path, String body) {
        return send(method, path, body, Map.of());
    }

    /** A request with further headers (a trace context, say). */
    public Answer send(String method, String path, String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        headers.forEach(b::header);
        try {
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
