package dev.hourglass.node.dispatch.http;

import dev.hourglass.api.CallbackSignature;
import dev.hourglass.node.api.AlertJson;
import dev.hourglass.node.catalog.CallbackAllowList;
import dev.hourglass.node.core.alert.Alert;
import dev.hourglass.node.core.port.WebhookSender;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;

/**
 * Alert webhooks over HTTP: a JSON POST signed like a callback ({@link CallbackSignature}, with the
 * service's signing secret), to URLs on the callback allow-list only (checked again at each send:
 * the list may have changed since the policy was saved). Few and small, so the JDK's client.
 */
public final class HttpWebhookSender implements WebhookSender {
    public static final String ALERT_ID_HEADER = "Hourglass-Alert-Id";

    private final HttpClient client;
    private final CallbackAllowList allowList;
    private final Clock clock;
    private final Duration timeout;

    public HttpWebhookSender(CallbackAllowList allowList, Clock clock, Duration timeout) {
        this.client = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER) // a redirect could leave the allow-list
                .build();
        this.allowList = allowList;
        this.clock = clock;
        this.timeout = timeout;
    }

    @Override
    public String send(String url, String secret, Alert alert) {
        byte[] body = AlertJson.webhookBody(alert);
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            return "webhook URL is not valid: " + e.getMessage();
        }
        if (!allowList.allows(uri)) {
            return "webhook host " + uri.getHost() + " is not on the callback allow-list";
        }
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header(ALERT_ID_HEADER, Long.toString(alert.id()))
                .header(CallbackSignature.HEADER, CallbackSignature.sign(secret, clock.millis(), body))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        try {
            int status =
                    client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            return status / 100 == 2 ? null : "webhook answered HTTP " + status;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (Exception e) {
            return "webhook unreachable: " + e;
        }
    }
}
