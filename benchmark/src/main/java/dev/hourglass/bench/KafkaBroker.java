package dev.hourglass.bench;

import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A one-node KRaft Kafka broker for benchmarks, in process (Kafka's own test kit), on loopback:
 * {@code KafkaBroker}. Prints its bootstrap address and runs until killed.
 */
public final class KafkaBroker {
    private KafkaBroker() {}

    public static void main(String[] args) throws Exception {
        KafkaClusterTestKit kafka = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                        .setCombined(true)
                        .setNumBrokerNodes(1)
                        .setNumControllerNodes(1)
                        .build())
                .setConfigProp("auto.create.topics.enable", "false")
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .build();
        kafka.format();
        kafka.startup();
        kafka.waitForReadyBrokers();
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
