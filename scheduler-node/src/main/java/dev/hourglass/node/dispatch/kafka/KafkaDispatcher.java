package dev.hourglass.node.dispatch.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.node.background.DaemonThreads;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.TraceContext;
import dev.hourglass.node.core.port.Delivery;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.port.Dispatcher;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Delivers jobs of KAFKA services (docs/api.md, "Kafka record"): one record per attempt on the
 * service's topic, keyed by the bizKey (else the job id), the payload as value (a JSON string as
 * its raw text, any other JSON value as its JSON text), and the {@code hourglass-*} headers. One
 * idempotent producer per node ({@code acks=all}), batching with a short linger and lz4
 * compression; the operator's {@code kafka.producer.*} settings (SASL, TLS, tuning) go to it as
 * well ({@link KafkaSettings}).
 *
 * <p>Outcomes: SUCCESS is the broker's acknowledgement (what AUTO mode finishes on; CONSUMER mode
 * keeps the job RUNNING for the consumer's result). An attempt whose record was never handed to
 * the producer (send queue full, topic metadata not there within 2 s, producer buffer full, timeout
 * while waiting) is an ERROR that did not reach the broker ({@link DeliveryResult#notDelivered});
 * an error the producer reports after the append is a plain ERROR (the broker may have written
 * it); no acknowledgement within the job's timeout is a TIMEOUT.
 *
 * <p>Never blocks the caller: the record goes through a bounded {@link ProducerHandOff} to one
 * sender thread, and the producer itself never blocks ({@code max.block.ms} 0).
 *
 * <p>What can still be published after an attempt ended: a record is handed over only while its
 * attempt is current, and the producer publishes it within {@code delivery.timeout.ms} of the
 * hand-over or not at all; so an attempt reported TIMEOUT is published, if ever, at most that long
 * after the TIMEOUT. Its retry is handed over after it, to the same producer, with the same key,
 * hence the same partition: the idempotent producer keeps them in that order, so on one node
 * attempt n is never published after attempt n+1.
 */
public final class KafkaDispatcher implements Dispatcher {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int LINGER_MS = 2;

    private final Producer<byte[], byte[]> producer;
    private final ProducerHandOff handOff;
    private final ScheduledThreadPoolExecutor timeouts =
            new ScheduledThreadPoolExecutor(1, DaemonThreads.named("hourglass-kafka-timeouts"));

    public KafkaDispatcher(String bootstrapServers, String nodeId, KafkaSettings settings) {
        this(new KafkaProducer<>(producerProperties(bootstrapServers, nodeId, settings)), settings);
    }

    /** Tests: any producer, such as a {@code MockProducer}. */
    KafkaDispatcher(Producer<byte[], byte[]> producer, KafkaSettings settings) {
        this.producer = producer;
        this.handOff = new ProducerHandOff(producer, settings.sendQueueRecords(), settings.sendQueueBytes());
        timeouts.setRemoveOnCancelPolicy(true); // an acknowledged attempt frees its timer, and its record
    }

    /**
     * The node's defaults, then {@code kafka.producer.*} over them, then the settings the node's
     * guarantees rest on ({@link KafkaSettings#FIXED}), which nothing overrides.
     */
    static Properties producerProperties(String bootstrapServers, String nodeId, KafkaSettings settings) {
        Properties p = new Properties();
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "hourglass-" + nodeId);
        p.put(ProducerConfig.LINGER_MS_CONFIG, LINGER_MS);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        // the producer needs linger.ms + request.timeout.ms <= delivery.timeout.ms
        long linger = lingerMs(settings);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int)
                Math.max(1, Math.min(10_000, settings.deliveryTimeoutMs() - linger)));
        p.putAll(settings.producer()); // security (SASL, TLS) and tuning, as configured
        p.putAll(KafkaSettings.FIXED); // acks, idempotence, never blocking, byte-array serializers
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, settings.deliveryTimeoutMs());
        return p;
    }

    /** The configured {@code linger.ms}, or the node's; a value that is no number is refused by validation. */
    private static long lingerMs(KafkaSettings settings) {
        String configured = settings.producer().get(ProducerConfig.LINGER_MS_CONFIG);
        try {
            return configured == null ? LINGER_MS : Long.parseLong(configured.trim());
        } catch (NumberFormatException e) {
            return LINGER_MS;
        }
    }

    @Override
    public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
        ProducerRecord<byte[], byte[]> record = record(delivery);
        PendingSend p = handOff.offer(record, size(record), delivery.mayStillLeave());
        if (p == null) {
            return CompletableFuture.completedFuture(DeliveryResult.notDelivered("Kafka: not sent: send queue full ("
                    + handOff.maxRecords() + " records / " + handOff.maxBytes() + " bytes wait for the producer)"));
        }
        long timeoutMs = delivery.job().timeoutMs();
        ScheduledFuture<?> timer = timeouts.schedule(() -> timedOut(p, timeoutMs), timeoutMs, TimeUnit.MILLISECONDS);
        p.answer.whenComplete((r, e) -> timer.cancel(false));
        return p.answer;
    }

    private static void timedOut(PendingSend p, long timeoutMs) {
        if (!p.endUnsent("Kafka: not sent within the timeout (" + timeoutMs + " ms): waiting for " + p.waitingFor)) {
            p.answer.complete(
                    new DeliveryResult(AttemptOutcome.TIMEOUT, null, "no broker acknowledgement within the timeout"));
        }
    }

    /** Attempts waiting to be handed to the producer (a gauge). */
    public int waitingRecords() {
        return handOff.waitingRecords();
    }

    /** Bytes of keys, values and headers of those attempts (a gauge). */
    public long waitingBytes() {
        return handOff.waitingBytes();
    }

    /** The record of docs/api.md, "Kafka record". */
    static ProducerRecord<byte[], byte[]> record(Delivery delivery) {
        Job job = delivery.job();
        byte[] key = utf8(job.bizKey() != null ? job.bizKey() : Long.toString(job.id()));
        List<Header> headers = new ArrayList<>();
        headers.add(header("hourglass-job-id", Long.toString(job.id())));
        headers.add(header("hourglass-app", job.app()));
        headers.add(header("hourglass-service", job.service()));
        if (job.bizKey() != null) {
            headers.add(header("hourglass-biz-key", job.bizKey()));
        }
        headers.add(header("hourglass-attempt", Integer.toString(delivery.attempt())));
        headers.add(header("hourglass-fire-at", Long.toString(job.fireAt())));
        headers.add(header("hourglass-fired-at", Long.toString(delivery.firedAt())));
        for (Map.Entry<String, String> a : job.attributes().entrySet()) {
            headers.add(header("hourglass-attr-" + a.getKey(), a.getValue()));
        }
        // the submit's trace context, under the W3C names a consumer's tracing reads
        TraceContext.of(job.attributes()).headers().forEach((name, value) -> headers.add(header(name, value)));
        return new ProducerRecord<>(delivery.service().topic(), null, key, value(job.payload()), headers);
    }

    /** What a waiting record holds: its key, value and headers. */
    private static int size(ProducerRecord<byte[], byte[]> record) {
        int size = record.key().length + record.value().length;
        for (Header h : record.headers()) {
            size += h.key().length() + h.value().length;
        }
        return size;
    }

    /** A JSON string payload as its raw UTF-8 text; any other JSON value as its JSON text. */
    static byte[] value(String payloadJson) {
        if (payloadJson.startsWith("\"")) {
            try {
                return utf8(JSON.readValue(payloadJson, String.class));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("stored payload is not JSON", e);
            }
        }
        return utf8(payloadJson);
    }

    private static Header header(String name, String value) {
        return new RecordHeader(name, utf8(value));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Ends the attempts still waiting as not delivered, then closes the producer, which sends what
     * it holds for up to 5 s (their answers complete as usual).
     */
    @Override
    public void close() {
        handOff.close();
        producer.close(Duration.ofSeconds(5));
        timeouts.shutdownNow();
    }
}
