package dev.hourglass.node.core.port;

import dev.hourglass.node.core.alert.Alert;

/** Sends one alert notification; a port so the monitor can be tested without a network. */
public interface WebhookSender {
    /**
     * POSTs the alert to {@code url} (docs/alerts.md), signed with {@code secret}; returns null
     * when the webhook accepted it (2xx), else why not.
     */
    String send(String url, String secret, Alert alert);
}
