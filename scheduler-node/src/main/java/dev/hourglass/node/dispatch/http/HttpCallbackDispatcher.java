package dev.hourglass.node.dispatch.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.api.CallbackSignature;
import dev.hourglass.node.dispatch.Delivery;
import dev.hourglass.node.dispatch.DeliveryResult;
import dev.hourglass.node.dispatch.Dispatcher;
import dev.hourglass.node.job.AttemptOutcome;
import dev.hourglass.node.job.Job;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Delivers jobs of HTTP services (SPEC §6): POSTs the CallbackRequest as JSON, signed with the
 * service's secret, and reads the answer: 2xx is SUCCESS unless a JSON body says RETRY or FAIL;
 * 410 is FAIL; 429 and 503 are RETRY after {@code Retry-After}; anything else is RETRY; no answer
 * within the job's timeout is TIMEOUT; a connection failure is ERROR. Uses the JDK's HTTP client:
 * asynchronous, pooled, no redirects followed.
 */
public final class HttpCallbackDispatcher implements Dispatcher {
    private static final JsonFactory JSON_FACTORY = new JsonFactory();
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client;
    private final CallbackAllowList allowList;
    private final Clock clock;

    public HttpCallbackDispatcher(CallbackAllowList allowList, Clock clock) {
        this.allowList = allowList;
        this.clock = clock;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    @Override
    public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
        URI url = URI.create(delivery.service().url());
        if (!allowList.allows(url)) {
            return CompletableFuture.completedFuture(
                    DeliveryResult.error("callback URL " + url.getHost() + " is not on the allow-list"));
        }
        Job job = delivery.job();
        byte[] body = callbackBody(delivery);
        String signature = CallbackSignature.sign(delivery.service().signingSecret(), clock.millis(), body);
        HttpRequest request = HttpRequest.newBuilder(url)
                .timeout(Duration.ofMillis(job.timeoutMs()))
                .header("Content-Type", "application/json")
                .header("Hourglass-Job-Id", Long.toString(job.id()))
                .header("Hourglass-Attempt", Integer.toString(delivery.attempt()))
                .header(CallbackSignature.HEADER, signature)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .thenApply(HttpCallbackDispatcher::interpret)
                .exceptionally(HttpCallbackDispatcher::failure);
    }

    /** The CallbackRequest of SPEC §4 as JSON; the payload goes in as the job's JSON value. */
    static byte[] callbackBody(Delivery delivery) {
        Job job = delivery.job();
        ByteArrayOutputStream out =
                new ByteArrayOutputStream(256 + job.payload().length());
        try (JsonGenerator g = JSON_FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("jobId", Long.toString(job.id()));
            g.writeStringField("app", job.app());
            g.writeStringField("service", job.service());
            g.writeStringField("bizKey", job.bizKey());
            g.writeNumberField("attempt", delivery.attempt());
            g.writeNumberField("maxAttempts", job.maxAttempts());
            g.writeStringField("fireAt", Instant.ofEpochMilli(job.fireAt()).toString());
            g.writeStringField(
                    "firedAt", Instant.ofEpochMilli(delivery.firedAt()).toString());
            g.writeFieldName("payload");
            g.writeRawValue(job.payload());
            g.writeObjectFieldStart("attributes");
            for (Map.Entry<String, String> a : job.attributes().entrySet()) {
                g.writeStringField(a.getKey(), a.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static DeliveryResult interpret(HttpResponse<String> response) {
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return fromBody(response.body());
        }
        if (status == 410) {
            return new DeliveryResult(AttemptOutcome.FAIL, null, "HTTP 410 Gone");
        }
        if (status == 429 || status == 503) {
            Long after = response.headers()
                    .firstValue("Retry-After")
                    .map(HttpCallbackDispatcher::retryAfterMs)
                    .orElse(null);
            return new DeliveryResult(AttemptOutcome.RETRY, after, "HTTP " + status);
        }
        return new DeliveryResult(AttemptOutcome.RETRY, null, "HTTP " + status);
    }

    /** A 2xx body may say {"status":"RETRY"|"FAIL", "retryAfterMs":n, "message":"..."}. */
    private static DeliveryResult fromBody(String body) {
        if (body == null || body.isBlank()) {
            return DeliveryResult.success(null);
        }
        JsonNode node;
        try {
            node = JSON.readTree(body);
        } catch (IOException e) {
            return DeliveryResult.success(null); // a 2xx with a body that is not ours is still success
        }
        if (node == null || !node.isObject() || !node.path("status").isTextual()) {
            return DeliveryResult.success(null);
        }
        String message = node.path("message").isTextual() ? node.get("message").asText() : null;
        Long retryAfter = node.path("retryAfterMs").canConvertToLong()
                ? node.get("retryAfterMs").asLong()
                : null;
        return switch (node.get("status").asText()) {
            case "RETRY" -> new DeliveryResult(AttemptOutcome.RETRY, retryAfter, message);
            case "FAIL" -> new DeliveryResult(AttemptOutcome.FAIL, null, message);
            default -> DeliveryResult.success(message);
        };
    }

    /** Retry-After as seconds or as an HTTP date. */
    static Long retryAfterMs(String value) {
        String v = value.trim();
        try {
            return Math.max(0, Long.parseLong(v)) * 1_000;
        } catch (NumberFormatException notSeconds) {
            try {
                long at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant()
                        .toEpochMilli();
                return Math.max(0, at - System.currentTimeMillis());
            } catch (RuntimeException notDate) {
                return null;
            }
        }
    }

    private static DeliveryResult failure(Throwable t) {
        Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        if (cause instanceof HttpTimeoutException) {
            return new DeliveryResult(AttemptOutcome.TIMEOUT, null, "no answer within the timeout");
        }
        if (cause instanceof ConnectException) {
            return DeliveryResult.error("connection refused: " + cause.getMessage());
        }
        return DeliveryResult.error(cause.toString());
    }
}
