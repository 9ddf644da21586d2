package dev.hourglass.examples;

import dev.hourglass.api.CallbackStatus;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.kafka.HourglassRecord;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A KAFKA service's consumer ({@code "ackMode":"CONSUMER"}: it reports each result):
 * {@code java ... KafkaConsumerExample 127.0.0.1:9092 orders.close http://127.0.0.1:8080 <appToken>}.
 */
public final class KafkaConsumerExample {
    public static void main(String[] args) {
        HourglassClient hourglass = HourglassClient.create(args[2], args[3]);
        // earliest: a group's first start reads the jobs published before it joined, not only later ones
        Map<String, Object> config =
                Map.of("bootstrap.servers", args[0], "group.id", "order-closer", "auto.offset.reset", "earliest");
        try (var consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(args[1]), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    System.out.println("consuming " + partitions);
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}
            });
            while (true) {
                for (var record : consumer.poll(Duration.ofSeconds(1))) {
                    HourglassRecord job = HourglassRecord.from(record);
                    System.out.printf(
                            "closing order %s (attempt %d): %s%n", job.bizKey(), job.attempt(), job.valueAsString());
                    try {
                        job.report(hourglass, CallbackStatus.SUCCESS, null);
                    } catch (RuntimeException e) {
                        // the consumer goes on: with no result within its timeout the job is sent again
                        System.out.printf("could not report job %s: %s%n", job.jobId(), e);
                    }
                }
            }
        }
    }
}
