package dev.hourglass.node.dispatch.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.api.CallbackSignature;
import dev.hourglass.api.Iso8601;
import dev.hourglass.node.catalog.CallbackAllowList;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.TraceContext;
import dev.hourglass.node.core.port.Delivery;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.port.Dispatcher;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.ProxyAuthenticationProtocolHandler;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.WWWAuthenticationProtocolHandler;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers jobs of HTTP services (docs/api.md, "HTTP callback"): POSTs the CallbackRequest as JSON,
 * signed with the service's secret, and reads the answer: 2xx is SUCCESS unless a JSON body says
 * RETRY or FAIL; 410 is FAIL; 429 and 503 are RETRY after {@code Retry-After}; anything else is
 * RETRY; no answer within the job's timeout is TIMEOUT; a connection failure is ERROR, {@linkplain
 * DeliveryResult#notDelivered not delivered} when the request never began on a connection (refused,
 * connect timeout, unknown host: nothing was sent), counted otherwise. A retry hint (body or header)
 * over 30 days is clamped to 30 days ({@link DeliveryResult#retry}). Uses Jetty's asynchronous
 * HTTP client (the server's Jetty): pooled keep-alive connections, closed after {@code
 * callbackKeepAliveMs} idle, no redirects followed. Its concurrency is bounded upstream, per
 * service, by {@code maxInFlight}.
 */
public final class HttpCallbackDispatcher implements Dispatcher {
    private static final JsonFactory JSON_FACTORY = new JsonFactory();
    private static final Logger LOG = LoggerFactory.getLogger(HttpCallbackDispatcher.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Enough for any answer docs/api.md, "HTTP callback", defines; a longer body is cut and read as far as it goes. */
    private static final int MAX_ANSWER_BYTES = 64 * 1024;

    private final HttpClient client;
    private final CallbackAllowList allowList;
    private final Clock clock;
    private final Map<String, Boolean> allowedUrls = new ConcurrentHashMap<>();

    /**
     * @param keepAliveMs how long a connection stays open idle for the next callback; while a
     *     request waits for its answer, the job's timeout bounds it instead
     */
    public HttpCallbackDispatcher(CallbackAllowList allowList, long keepAliveMs, Clock clock) {
        this.allowList = allowList;
        this.clock = clock;
        QueuedThreadPool threads =
                new QueuedThreadPool(Math.max(8, 4 * Runtime.getRuntime().availableProcessors()), 4);
        threads.setName("hourglass-http-callback");
        threads.setDaemon(true);
        this.client = new HttpClient();
        client.setExecutor(threads);
        client.setFollowRedirects(false);
        client.setConnectTimeout(5_000);
        client.setIdleTimeout(keepAliveMs);
        // the service gates bound concurrency per service; these only must not get in their way
        client.setMaxConnectionsPerDestination(100_000);
        client.setMaxRequestsQueuedPerDestination(1_000_000);
        client.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "Hourglass"));
        try {
            client.start();
            // a receiver's 401/407 is an answer like any other (RETRY), not a challenge for the
            // client to answer: with these handlers (added by start()) Jetty turns a 401 without
            // WWW-Authenticate into a protocol violation
            client.getProtocolHandlers().remove(WWWAuthenticationProtocolHandler.NAME);
            client.getProtocolHandlers().remove(ProxyAuthenticationProtocolHandler.NAME);
        } catch (Exception e) {
            throw new IllegalStateException("the HTTP callback client did not start", e);
        }
    }

    @Override
    public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
        String url = delivery.service().url();
        if (!allowedUrls.computeIfAbsent(url, u -> allowList.allows(URI.create(u)))) {
            return CompletableFuture.completedFuture(
                    DeliveryResult.error("callback URL " + URI.create(url).getHost() + " is not on the allow-list"));
        }
        Job job = delivery.job();
        byte[] body = callbackBody(delivery);
        String signature = CallbackSignature.sign(delivery.service().signingSecret(), clock.millis(), body);
        CompletableFuture<DeliveryResult> answer = new CompletableFuture<>();
        // Jetty begins a request once it has a connection for it, before writing a byte of it
        AtomicBoolean begun = new AtomicBoolean();
        client.newRequest(url)
                .onRequestBegin(r -> begun.set(true))
                .method(HttpMethod.POST)
                .timeout(job.timeoutMs(), TimeUnit.MILLISECONDS)
                // the connection's idle timeout is its keep-alive: waiting for a slow answer, only
                // the job's timeout may end the exchange (Jetty restores the keep-alive after it)
                .idleTimeout(job.timeoutMs(), TimeUnit.MILLISECONDS)
                .headers(h -> {
                    h.put("Hourglass-Job-Id", Long.toString(job.id()))
                            .put("Hourglass-Attempt", Integer.toString(delivery.attempt()))
                            .put(CallbackSignature.HEADER, signature);
                    // the submit's trace context, under the W3C names a receiver's tracing reads
                    TraceContext.of(job.attributes()).headers().forEach(h::put);
                })
                .body(new BytesRequestContent("application/json", body))
                .send(new BufferingResponseListener(MAX_ANSWER_BYTES) {
                    @Override
                    public void onComplete(Result result) {
                        answer.complete(
                                result.isFailed()
                                        ? failure(result.getFailure(), begun.get())
                                        : interpret(
                                                result.getResponse().getStatus(),
                                                result.getResponse()
                                                        .getHeaders()
                                                        .get(HttpHeader.RETRY_AFTER),
                                                getContentAsString(StandardCharsets.UTF_8),
                                                clock.millis()));
                    }
                });
        return answer;
    }

    @Override
    public void close() {
        try {
            client.stop();
        } catch (Exception e) {
            // stopping: nothing left to do with the client
        }
    }

    /** The CallbackRequest as JSON (docs/api.md, "HTTP callback"); the payload goes in as the job's JSON value. */
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
            g.writeStringField("fireAt", Iso8601.format(job.fireAt()));
            g.writeStringField("firedAt", Iso8601.format(delivery.firedAt()));
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

    /** The receiver's answer; {@code now} dates a {@code Retry-After} given as an HTTP date. */
    static DeliveryResult interpret(int status, String retryAfter, String body, long now) {
        if (status >= 200 && status < 300) {
            return fromBody(body);
        }
        if (status == 410) {
            return new DeliveryResult(AttemptOutcome.FAIL, null, "HTTP 410 Gone");
        }
        if (status == 429 || status == 503) {
            return DeliveryResult.retry(retryAfter == null ? null : retryAfterMs(retryAfter, now), "HTTP " + status);
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
        return switch (node.get("status").asText()) {
            // RELEASE is a pull consumer's: a pushed attempt, used by being called, is retried
            case "RETRY", "RELEASE" -> DeliveryResult.retry(bodyRetryAfterMs(node.get("retryAfterMs")), message);
            case "FAIL" -> new DeliveryResult(AttemptOutcome.FAIL, null, message);
            default -> DeliveryResult.success(message);
        };
    }

    /**
     * The body's {@code retryAfterMs}: any JSON number, whole milliseconds, saturated at the ends of
     * a long (1e30 or 99999999999999999999 is {@link Long#MAX_VALUE}, then clamped by
     * {@link DeliveryResult#retry}); null when absent or not a number.
     */
    private static Long bodyRetryAfterMs(JsonNode v) {
        if (v == null || !v.isNumber()) {
            return null;
        }
        // a double beyond a long converts to the nearest end of the long range
        return v.isIntegralNumber() && v.canConvertToLong() ? v.asLong() : (long) v.asDouble();
    }

    /**
     * Retry-After as delay-seconds or as an HTTP date, in milliseconds from {@code now}; a number
     * of seconds too large for a long of milliseconds saturates at {@link Long#MAX_VALUE}, a
     * negative one or a date in the past is 0, anything else null (ignored).
     */
    static Long retryAfterMs(String value, long now) {
        String v = value.trim();
        if (v.matches("[-+]?\\d+")) {
            if (v.startsWith("-")) {
                return 0L;
            }
            try {
                return Math.multiplyExact(Long.parseLong(v), 1_000L);
            } catch (NumberFormatException | ArithmeticException beyondALong) {
                return Long.MAX_VALUE;
            }
        }
        try {
            long at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant()
                    .toEpochMilli();
            return Math.max(0, at - now); // RFC 1123 years have 4 digits: no overflow
        } catch (RuntimeException notDate) {
            return null;
        }
    }

    /**
     * A failed exchange. Before the request began on a connection nothing was sent: the attempt is
     * not delivered (unless the job's timeout ran out first: a TIMEOUT, whatever its moment). After
     * that the receiver may have read it, and a reset or a closed connection counts as an ERROR.
     */
    static DeliveryResult failure(Throwable cause, boolean requestBegun) {
        if (cause instanceof TimeoutException) {
            return new DeliveryResult(AttemptOutcome.TIMEOUT, null, "no answer within the timeout");
        }
        if (!requestBegun) {
            return DeliveryResult.notDelivered("could not connect: " + describe(cause));
        }
        if (cause instanceof Error) {
            // not an answer nor a network failure but a defect (ours or the client's): the
            // attempt is retried like any error, and the trace is kept for whoever looks into it
            LOG.warn("HTTP callback failed with an error", cause);
        }
        return DeliveryResult.error(describe(cause));
    }

    private static String describe(Throwable cause) {
        return cause instanceof ConnectException ? "connection refused: " + cause.getMessage() : cause.toString();
    }
}
