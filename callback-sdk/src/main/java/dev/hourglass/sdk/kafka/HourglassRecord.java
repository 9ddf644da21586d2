package dev.hourglass.sdk.kafka;

import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.JobView;
import dev.hourglass.api.ResultReport;
import dev.hourglass.sdk.HourglassClient;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * A Hourglass job as a Kafka consumer receives it (docs/api.md, "Kafka record"), read from the
 * record's {@code hourglass-*} headers; {@link #value()} is the payload (a JSON string payload
 * arrives as its raw text). Deduplicate on {@link #jobId()}: a second delivery of a job comes only
 * after a timeout or a crash, with a higher {@link #attempt()}.
 *
 * <pre>{@code
 * for (ConsumerRecord<byte[], byte[]> r : consumer.poll(timeout)) {
 *     HourglassRecord job = HourglassRecord.from(r);
 *     boolean done = closeOrder(job.bizKey(), job.valueAsString());
 *     job.report(hourglass, done ? CallbackStatus.SUCCESS : CallbackStatus.RETRY, null); // CONSUMER mode only
 * }
 * }</pre>
 */
public record HourglassRecord(
        String jobId,
        String app,
        String service,
        String bizKey,
        int attempt,
        Instant fireAt,
        Instant firedAt,
        Map<String, String> attributes,
        byte[] value) {

    private static final String ATTRIBUTE = "hourglass-attr-";

    /**
     * Reads a record Hourglass published; IllegalArgumentException when it is not one. The value is
     * taken as the consumer's deserializer gave it: bytes, or text (read as UTF-8).
     */
    public static HourglassRecord from(ConsumerRecord<?, ?> record) {
        Map<String, Object> headers = new LinkedHashMap<>();
        for (Header h : record.headers()) {
            headers.put(h.key(), h.value()); // the last of a name wins, as lastHeader
        }
        return from(headers, record.value());
    }

    /**
     * Reads the job from a record's headers and value as a framework hands them over (Spring
     * Kafka's message headers, for one): each header's value as bytes or text, the value as bytes,
     * text or null. IllegalArgumentException when the headers are not a Hourglass record's.
     */
    public static HourglassRecord from(Map<String, ?> headers, Object value) {
        Map<String, String> attributes = new LinkedHashMap<>();
        headers.forEach((name, v) -> {
            if (name.startsWith(ATTRIBUTE) && text(v) != null) {
                attributes.put(name.substring(ATTRIBUTE.length()), text(v));
            }
        });
        return new HourglassRecord(
                required(headers, "hourglass-job-id"),
                required(headers, "hourglass-app"),
                required(headers, "hourglass-service"),
                text(headers.get("hourglass-biz-key")),
                Integer.parseInt(required(headers, "hourglass-attempt")),
                Instant.ofEpochMilli(Long.parseLong(required(headers, "hourglass-fire-at"))),
                Instant.ofEpochMilli(Long.parseLong(required(headers, "hourglass-fired-at"))),
                Map.copyOf(attributes),
                bytes(value));
    }

    private static byte[] bytes(Object value) {
        if (value == null || value instanceof byte[]) {
            return (byte[]) value;
        }
        if (value instanceof String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("a Hourglass record's value is read as byte[] or String, not "
                + value.getClass().getName() + ": use the ByteArray or String deserializer");
    }

    public String valueAsString() {
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }

    /** Reports this attempt's result (ackMode CONSUMER): CONFLICT if it is no longer the current attempt. */
    public JobView report(HourglassClient hourglass, CallbackStatus status, String message) {
        return hourglass.reportResult(
                jobId, new ResultReport().setAttempt(attempt).setStatus(status).setMessage(message));
    }

    private static String required(Map<String, ?> headers, String name) {
        String v = text(headers.get(name));
        if (v == null) {
            throw new IllegalArgumentException("not a Hourglass record: no " + name + " header");
        }
        return v;
    }

    private static String text(Object header) {
        if (header instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        return header == null ? null : header.toString();
    }
}
