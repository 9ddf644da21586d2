package dev.hourglass.bench;

import dev.hourglass.node.testing.TestKafka;
import org.apache.kafka.common.test.KafkaClusterTestKit;

/**
 * A one-node KRaft Kafka broker for benchmarks, in a process of its own on loopback:
 * {@code KafkaBroker}. The broker is the tests' ({@link TestKafka#start()}, from scheduler-node's
 * test-jar: topics are not created on first use, LoadBench creates its own); this prints its
 * bootstrap address and runs until killed.
 */
public final class KafkaBroker {
    private KafkaBroker() {}

    public static void main(String[] args) throws Exception {
        KafkaClusterTestKit kafka = TestKafka.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                kafka.close();
            } catch (Exception ignored) {
                // exiting
            }
        }));
        System.out.println("Kafka ready: " + kafka.bootstrapServers());
        Thread.currentThread().join();
    }
}
