package dev.hourglass.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Consumes the benchmark topic and reports each record to the {@link CallbackSink}'s counters
 * (job id and fire time from the {@code hourglass-*} headers; arrival = when the consumer sees it).
 *
 * <p>The topic and the consumer are set up as the tests' {@code TestKafka} sets up theirs, but that
 * takes the broker's {@code KafkaClusterTestKit} in the same JVM; this one knows the broker (another
 * process, {@link KafkaBroker}) by its bootstrap address only.
 */
final class KafkaSink implements AutoCloseable {
    private final Thread thread;
    private volatile boolean running = true;

    KafkaSink(String bootstrap, String topic, CallbackSink counters) throws Exception {
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin a = Admin.create(admin)) {
            a.createTopics(List.of(new NewTopic(topic, 6, (short) 1))).all().get();
        }
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p);
        consumer.subscribe(List.of(topic));
        thread = new Thread(
                () -> {
                    try (consumer) {
                        while (running) {
                            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                                long now = System.currentTimeMillis();
                                counters.arrived(
                                        header(r, "hourglass-job-id"),
                                        Long.parseLong(header(r, "hourglass-fire-at")),
                                        Long.parseLong(header(r, "hourglass-fired-at")),
                                        now);
                            }
                        }
                    }
                },
                "bench-kafka-sink");
        thread.start();
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(5_000);
    }
}
