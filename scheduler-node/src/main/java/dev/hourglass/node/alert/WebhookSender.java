package dev.hourglass.node.alert;

/** Sends one alert notification; a port so the monitor can be tested without a network. */
public interface WebhookSender {
    /**
     * POSTs {@code body} to {@code url}, signed with {@code secret}; returns null when the webhook
     * accepted it (2xx), else why not.
     */
    String send(String url, String secret, long alertId, byte[] body);
}
