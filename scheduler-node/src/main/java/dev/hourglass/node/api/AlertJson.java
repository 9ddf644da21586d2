package dev.hourglass.node.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.Iso8601;
import dev.hourglass.node.core.alert.Alert;
import java.nio.charset.StandardCharsets;

/**
 * An alert on the wire (docs/alerts.md), the same fields and time format for the webhook's POST
 * and the alerts API: the webhook gets the alert itself; the API adds who acknowledged it and how
 * its notification went.
 */
public final class AlertJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private AlertJson() {}

    /** The webhook's body. */
    public static byte[] webhookBody(Alert a) {
        try {
            return MAPPER.writeValueAsString(alert(a)).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e); // a tree of strings and numbers always writes
        }
    }

    /** The alerts API's view: the webhook's fields, the acknowledgement and the notification's state. */
    public static ObjectNode withHistory(Alert a) {
        ObjectNode n = alert(a);
        n.put("acknowledgedBy", a.ackedBy());
        n.put("acknowledgedAt", time(a.ackedAt()));
        ObjectNode webhook = n.putObject("notification");
        webhook.put("webhook", a.webhook());
        webhook.put(
                "notifiedState",
                a.notifiedState() == null ? null : a.notifiedState().name());
        webhook.put("failedAttempts", a.notifyAttempts());
        webhook.put("nextAttemptAt", time(a.nextNotifyAt()));
        webhook.put("lastError", a.lastNotifyError());
        return n;
    }

    private static ObjectNode alert(Alert a) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("id", Long.toString(a.id()));
        n.put("app", a.app());
        n.put("service", a.service());
        n.put("kind", a.kind().name());
        n.put("state", a.state().name());
        n.put("observed", a.observed());
        n.put("threshold", a.threshold());
        n.put("message", a.message());
        n.put("firedAt", time(a.firedAt()));
        n.put("resolvedAt", time(a.resolvedAt()));
        return n;
    }

    private static String time(Long epochMs) {
        return epochMs == null ? null : Iso8601.format(epochMs);
    }
}
