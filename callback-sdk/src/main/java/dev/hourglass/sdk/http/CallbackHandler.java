package dev.hourglass.sdk.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpHandler;
import dev.hourglass.api.CallbackRequest;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.CallbackSignature;
import dev.hourglass.api.JobCallbackService;
import dev.hourglass.sdk.CallbackVerifier;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Receives Hourglass HTTP callbacks (docs/api.md, "HTTP callback") for a {@link
 * JobCallbackService}: verifies the {@code Hourglass-Signature} (constant time, timestamp within
 * the verifier's tolerance), calls the implementation, and answers what Hourglass expects: 200 with
 * {@code {"status":...}} for SUCCESS, RETRY (with {@code retryAfterMs}) or FAIL; 401 for a bad
 * signature and 400 for a body that is not a callback (Hourglass retries both). An exception in the
 * implementation answers 500: a RETRY.
 *
 * <p>Transport-neutral: {@link #handle} takes the header and the body; {@link #asHttpHandler()} plugs
 * it into the JDK's HTTP server; a servlet calls {@code handle} with
 * {@code request.getHeader("Hourglass-Signature")} and {@code request.getInputStream().readAllBytes()}.
 *
 * <pre>{@code
 * HttpServer server = HttpServer.create(new InetSocketAddress(9000), 0);
 * server.createContext("/close-order", new CallbackHandler(secret, request -> {
 *     orders.close(request.getBizKey());
 *     return CallbackResult.success();
 * }).asHttpHandler());
 * server.start();
 * }</pre>
 *
 * <p>The JDK's server silently closes every connection beyond 200 idle ones after its answer; for a
 * service with {@code maxInFlight} above 200 start the JVM with
 * {@code -Dsun.net.httpserver.maxIdleConnections=<maxInFlight or more>}, or Hourglass sends
 * requests on connections being closed and some jobs again (docs/api.md, "HTTP callback").
 *
 * <p>To rotate the service's signing secret without refusing a callback, construct it with both
 * secrets for the time of the rotation: {@code new CallbackHandler(List.of(newSecret, oldSecret),
 * callback)} (docs/security.md, "Rotating a signing secret").
 */
public final class CallbackHandler {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What to answer: the status code and the JSON body. */
    public record Answer(int status, String body) {}

    private final CallbackVerifier verifier;
    private final JobCallbackService service;

    public CallbackHandler(String signingSecret, JobCallbackService service) {
        this(new CallbackVerifier(signingSecret), service);
    }

    /**
     * Accepts callbacks signed with any of {@code signingSecrets}: during a rotation of the
     * service's secret, the new one and the one it replaces ({@link CallbackVerifier}).
     */
    public CallbackHandler(java.util.Collection<String> signingSecrets, JobCallbackService service) {
        this(new CallbackVerifier(signingSecrets), service);
    }

    public CallbackHandler(CallbackVerifier verifier, JobCallbackService service) {
        this.verifier = verifier;
        this.service = service;
    }

    public Answer handle(String signatureHeader, byte[] body) {
        if (!verifier.verify(signatureHeader, body)) {
            return new Answer(401, "{\"status\":\"RETRY\",\"message\":\"bad or stale signature\"}");
        }
        CallbackRequest request;
        try {
            request = parse(body);
        } catch (IOException | RuntimeException e) {
            return new Answer(400, "{\"status\":\"RETRY\",\"message\":\"not a Hourglass callback\"}");
        }
        CallbackResult result;
        try {
            result = service.execute(request);
        } catch (RuntimeException e) {
            return new Answer(500, json(CallbackResult.retry(String.valueOf(e))));
        }
        return new Answer(200, json(result == null ? CallbackResult.success() : result));
    }

    public HttpHandler asHttpHandler() {
        return exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Answer answer = handle(exchange.getRequestHeaders().getFirst(CallbackSignature.HEADER), body);
            byte[] out = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(answer.status(), out.length);
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(out);
            }
        };
    }

    static CallbackRequest parse(byte[] body) throws IOException {
        JsonNode n = JSON.readTree(body);
        Map<String, String> attributes = new LinkedHashMap<>();
        n.path("attributes")
                .fields()
                .forEachRemaining(e -> attributes.put(e.getKey(), e.getValue().asText()));
        CallbackRequest r = new CallbackRequest();
        r.setJobId(n.get("jobId").asText());
        r.setApp(n.path("app").asText(null));
        r.setService(n.path("service").asText(null));
        r.setBizKey(n.path("bizKey").isTextual() ? n.get("bizKey").asText() : null);
        r.setAttempt(n.path("attempt").asInt());
        r.setMaxAttempts(n.path("maxAttempts").asInt());
        r.setFireAt(Instant.parse(n.get("fireAt").asText()));
        r.setFiredAt(Instant.parse(n.get("firedAt").asText()));
        r.setPayload(n.has("payload") ? n.get("payload").toString() : "null");
        r.setAttributes(attributes);
        return r;
    }

    private static String json(CallbackResult result) {
        ObjectNode n = JSON.createObjectNode();
        n.put(
                "status",
                result.getStatus() == null ? "SUCCESS" : result.getStatus().name());
        if (result.getRetryAfterMs() != null) {
            n.put("retryAfterMs", result.getRetryAfterMs());
        }
        if (result.getMessage() != null) {
            n.put("message", result.getMessage());
        }
        return n.toString();
    }
}
