package dev.hourglass.node.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.config.ConfigLoader;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.test.JaasUtils;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A KAFKA service on a broker that only accepts SASL_PLAINTEXT (mechanism PLAIN) and authorizes by
 * ACL (the node's user may write to its topic, nothing more): the node's
 * producer gets its credentials through {@code kafka.producer.*}, the password read from a file
 * through {@code ${file:...}}, the user name from the environment through {@code ${env:...}}, as a
 * configuration file would name them.
 */
@RunsAlongside
class KafkaSaslIT {
    private static final String JAAS_PROPERTY = "java.security.auth.login.config";
    private static final String TOPIC = "shop.secured";

    static KafkaClusterTestKit kafka;
    /** The test kit points the JVM's JAAS file at its broker's; the other tests must not see it. */
    static String jaasBefore;

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker() throws Exception {
        jaasBefore = System.getProperty(JAAS_PROPERTY);
        kafka = TestKafka.start(SecurityProtocol.SASL_PLAINTEXT);
        // the broker authorizes (no ACL: denied): the node's principal may write to its topic only
        try (var admin = kafka.admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            String node = "User:" + JaasUtils.KAFKA_PLAIN_USER1;
            var topic = new ResourcePattern(ResourceType.TOPIC, TOPIC, PatternType.LITERAL);
            admin.createAcls(List.of(
                            new AclBinding(
                                    topic,
                                    new AccessControlEntry(node, "*", AclOperation.WRITE, AclPermissionType.ALLOW)),
                            new AclBinding(
                                    topic,
                                    new AccessControlEntry(node, "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW))))
                    .all()
                    .get();
        }
    }

    @AfterAll
    static void stopBroker() throws Exception {
        try {
            if (kafka != null) {
                kafka.close();
            }
        } finally {
            if (jaasBefore == null) {
                System.clearProperty(JAAS_PROPERTY);
            } else {
                System.setProperty(JAAS_PROPERTY, jaasBefore);
            }
            javax.security.auth.login.Configuration.setConfiguration(null);
        }
    }

    /** {@code kafka.producer} as the loader reads it from a YAML file naming its secrets. */
    private Map<String, String> producerSettings(String password) throws Exception {
        Path secret = dir.resolve("kafka-password-" + UUID.randomUUID());
        Files.writeString(secret, password + "\n");
        Path yaml = dir.resolve("hourglass-" + UUID.randomUUID() + ".yaml");
        Files.writeString(
                yaml,
                "kafka:\n  producer:\n    security.protocol: SASL_PLAINTEXT\n    sasl.mechanism: PLAIN\n"
                        + "    sasl.jaas.config: org.apache.kafka.common.security.plain.PlainLoginModule required"
                        + " username=\"${env:KAFKA_USER}\" password=\"${file:" + secret + "}\";\n");
        return ConfigLoader.load(yaml, Map.of("KAFKA_USER", JaasUtils.KAFKA_PLAIN_USER1)).kafka.producer;
    }

    private static NodeFixture node(Map<String, String> producer) throws Exception {
        return new NodeFixture(c -> {
            c.cluster.kafkaBootstrap = kafka.bootstrapServers();
            c.kafka.producer = new java.util.LinkedHashMap<>(producer);
            c.dubbo.enabled = false; // Kafka only
        });
    }

    private static KafkaConsumer<byte[], byte[]> consumer() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                        + JaasUtils.KAFKA_PLAIN_ADMIN + "\" password=\"" + JaasUtils.KAFKA_PLAIN_ADMIN_PASSWORD
                        + "\";");
        return new KafkaConsumer<>(p);
    }

    /** Every record on the topic up to its current end. */
    private static List<ConsumerRecord<byte[], byte[]>> everyRecord() {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            TopicPartition partition = new TopicPartition(TOPIC, 0);
            c.assign(List.of(partition));
            c.seekToBeginning(List.of(partition));
            long end = c.endOffsets(List.of(partition)).get(partition);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                c.poll(Duration.ofMillis(200)).forEach(records::add);
                return c.position(partition) >= end;
            });
        }
        return records;
    }

    private static List<String> jobIds(List<ConsumerRecord<byte[], byte[]>> records) {
        List<String> ids = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Header h = r.headers().lastHeader("hourglass-job-id");
            ids.add(h == null ? null : new String(h.value(), StandardCharsets.UTF_8));
        }
        return ids;
    }

    private static String kafkaService(NodeFixture f) {
        var answer = f.app.put("/api/v1/services/secured", "{\"protocol\":\"KAFKA\",\"topic\":\"" + TOPIC + "\"}");
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
        return "secured";
    }

    @Test
    void aNodeWithTheCredentialsPublishesItsJobs() throws Exception {
        try (NodeFixture f = node(producerSettings(JaasUtils.KAFKA_PLAIN_USER1_PASSWORD))) {
            String id = f.submit(kafkaService(f), 0, "").get("id").asText();
            await().atMost(Duration.ofSeconds(30)).until(() -> "FINISHED".equals(f.state(id)));
            // the last attempt published it. One before it may have ended unsent: a producer waits
            // 2 s for a new topic's metadata (and the SASL handshake), which a JVM short of CPU
            // beside other test JVMs (README, "Tests") can take longer than
            JsonNode attempts = f.executions(id);
            assertThat(attempts.get(attempts.size() - 1).get("outcome").asText())
                    .isEqualTo("SUCCESS");
            for (int i = 0; i < attempts.size() - 1; i++) {
                assertThat(attempts.get(i).get("message").asText()).startsWith("Kafka: not sent");
            }
            assertThat(jobIds(everyRecord())).contains(id);
        }
    }

    @Test
    void aNodeWithAWrongPasswordPublishesNothing() throws Exception {
        try (NodeFixture f = node(producerSettings("not-the-password"))) {
            String id =
                    // attempts enough that the job is still being retried when the test looks
                    f.submit(kafkaService(f), 0, "\"maxAttempts\":50").get("id").asText();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                JsonNode attempts = f.executions(id);
                return attempts.size() >= 1 && attempts.get(0).hasNonNull("outcome");
            });
            JsonNode attempt = f.executions(id).get(0);
            assertThat(attempt.get("outcome").asText()).isEqualTo("ERROR");
            assertThat(attempt.get("message").asText())
                    .as("never handed to the producer, so never published later")
                    .startsWith("Kafka: not sent");
            assertThat(f.state(id)).as("retried, as a broker that refuses is").isIn("DELAYED", "RUNNING");
            assertThat(jobIds(everyRecord())).doesNotContain(id);
        }
    }
}
