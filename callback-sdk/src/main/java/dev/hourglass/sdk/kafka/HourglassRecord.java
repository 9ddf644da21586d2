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
        Map<String, String> attributes = new LinkedHashMap<>();
        for (Header h : record.headers()) {
            if (h.key().startsWith(ATTRIBUTE)) {
                attributes.put(h.key().substring(ATTRIBUTE.length()), text(h));
            }
        }
        return new HourglassRecord(
                required(record, "hourglass-job-id"),
                required(record, "hourglass-app"),
                required(record, "hourglass-service"),
                optional(record, "hourglass-biz-key"),
                Integer.parseInt(required(record, "hourglass-attempt")),
                Instant.ofEpochMilli(Long.parseLong(required(record, "hourglass-fire-at"))),
                Instant.ofEpochMilli(Long.parseLong(required(record, "hourglass-fired-at"))),
                Map.copyOf(attributes),
                bytes(record.value()));
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

    private static String required(ConsumerRecord<?, ?> record, String name) {
        String v = optional(record, name);
        if (v == null) {
            throw new IllegalArgumentException("not a Hourglass record: no " + name + " header");
        }
        return v;
    }

    private static String optional(ConsumerRecord<?, ?> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : text(h);
    }

    private static String text(Header h) {
        return new String(h.value(), StandardCharsets.UTF_8);
    }
}
