package dev.hourglass.node.dispatch.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.node.dispatch.Delivery;
import dev.hourglass.node.dispatch.DeliveryResult;
import dev.hourglass.node.dispatch.Dispatcher;
import dev.hourglass.node.job.AttemptOutcome;
import dev.hourglass.node.job.Job;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Delivers jobs of KAFKA services (SPEC §5): one record per attempt on the service's topic, keyed
 * by the bizKey (else the job id), the payload as value (a JSON string as its raw text, any other
 * JSON value as its JSON text), and the {@code hourglass-*} headers. One idempotent producer per
 * node ({@code acks=all}), batching with a short linger and lz4 compression.
 *
 * <p>SUCCESS is the broker's acknowledgement (what AUTO mode finishes on; CONSUMER mode keeps the
 * job RUNNING for the consumer's result). A broker that is down or a topic that is missing is an
 * ERROR attempt (retried with backoff): {@code send} waits at most {@code max.block.ms} for
 * metadata, on this dispatcher's own thread, never on the engine's; an acknowledgement that does
 * not come within the job's timeout is a TIMEOUT attempt.
 */
public final class KafkaDispatcher implements Dispatcher {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KafkaProducer<byte[], byte[]> producer;
    private final ExecutorService sender = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "hourglass-kafka-send");
        t.setDaemon(true);
        return t;
    });

    public KafkaDispatcher(String bootstrapServers, String nodeId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "hourglass-" + nodeId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(p);
    }

    @Override
    public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
        CompletableFuture<DeliveryResult> answer = new CompletableFuture<>();
        ProducerRecord<byte[], byte[]> record = record(delivery);
        sender.execute(() -> {
            try {
                producer.send(
                        record,
                        (metadata, error) -> answer.complete(
                                error == null
                                        ? DeliveryResult.success(
                                                metadata.topic() + "-" + metadata.partition() + "@" + metadata.offset())
                                        : DeliveryResult.error("Kafka: " + error)));
            } catch (RuntimeException e) {
                answer.complete(DeliveryResult.error("Kafka: " + e));
            }
        });
        return answer.completeOnTimeout(null, delivery.job().timeoutMs(), TimeUnit.MILLISECONDS)
                .thenApply(r -> r != null
                        ? r
                        : new DeliveryResult(
                                AttemptOutcome.TIMEOUT, null, "no broker acknowledgement within the timeout"));
    }

    /** The record of SPEC §5. */
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
        return new ProducerRecord<>(delivery.service().topic(), null, key, value(job.payload()), headers);
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

    @Override
    public void close() {
        sender.shutdown();
        producer.close(Duration.ofSeconds(5));
    }
}
