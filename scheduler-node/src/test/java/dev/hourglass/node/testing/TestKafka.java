package dev.hourglass.node.testing;

import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A real Kafka broker in the test JVM (KRaft, one combined broker and controller) on loopback.
 * Topics are not created on first use: a test creates the ones it needs, so a topic whose metadata
 * is not known yet is a case a test can make.
 */
public final class TestKafka {
    private TestKafka() {}

    /**
     * Creates a topic. The admin client is closed: one left open keeps reconnecting to the broker
     * after it stops, for the rest of the test JVM, flooding the log and the CPU of later tests.
     */
    public static void createTopic(KafkaClusterTestKit kafka, String name, int partitions) throws Exception {
        try (Admin admin = kafka.admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get();
        }
    }

    /** A consumer of {@code topic} from its beginning, in a group of its own. */
    public static KafkaConsumer<byte[], byte[]> consumer(KafkaClusterTestKit kafka, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p);
        c.subscribe(List.of(topic));
        return c;
    }

    /** A started broker with plain listeners. */
    public static KafkaClusterTestKit start() throws Exception {
        return start(SecurityProtocol.PLAINTEXT);
    }

    /** A started broker whose listeners (broker and controller) use {@code protocol}. */
    public static KafkaClusterTestKit start(SecurityProtocol protocol) throws Exception {
        KafkaClusterTestKit kafka = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                        .setCombined(true)
                        .setNumBrokerNodes(1)
                        .setNumControllerNodes(1)
                        .setBrokerSecurityProtocol(protocol)
                        .setControllerSecurityProtocol(protocol)
                        .build())
                .setConfigProp("auto.create.topics.enable", "false")
                .setConfigProp("offsets.topic.replication.factor", "1")
                // one partition, not 50: the coordinator created and loaded 50 on the first consumer
                // group and again at every broker restart (1.5 s each); no test needs more
                .setConfigProp("offsets.topic.num.partitions", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .build();
        kafka.format();
        kafka.startup();
        kafka.waitForReadyBrokers();
        return kafka;
    }
}
