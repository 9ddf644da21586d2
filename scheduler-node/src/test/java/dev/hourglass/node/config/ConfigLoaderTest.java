package dev.hourglass.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    @Test
    void defaultsAreStandalone() {
        NodeConfig c = ConfigLoader.load(null, Map.of());
        assertThat(c.isStandalone()).isTrue();
        assertThat(c.http.port).isEqualTo(8080);
        assertThat(c.callbackAllow).containsExactly("127.0.0.1", "localhost");
        assertThat(c.cluster.shards).isEqualTo(64);
        assertThat(c.kafka.sendQueueRecords).isEqualTo(10_000);
        assertThat(c.kafka.sendQueueBytes).isEqualTo(32L << 20);
        assertThat(c.kafka.deliveryTimeoutMs).isEqualTo(10_000);
    }

    @Test
    void yamlThenEnvironmentOverrides() throws Exception {
        Path file = dir.resolve("hourglass.yaml");
        Files.writeString(
                file, "http:\n  port: 9000\nengine:\n  loadWindowMs: 120000\ndatabase:\n  url: jdbc:mysql://db/x\n");
        NodeConfig c = ConfigLoader.load(
                file,
                Map.of("HOURGLASS_HTTP_PORT", "9100", "HOURGLASS_CALLBACK_ALLOW", "10.0.0.0/8, hooks.example.com"));
        assertThat(c.http.port).isEqualTo(9100);
        assertThat(c.engine.loadWindowMs).isEqualTo(120_000);
        assertThat(c.isStandalone()).isFalse();
        assertThat(c.callbackAllow).containsExactly("10.0.0.0/8", "hooks.example.com");
    }

    @Test
    void badSettingsAreNamed() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(
                file,
                "engine:\n  claimBatch: 0\ncluster:\n  shards: 0\n"
                        + "kafka:\n  sendQueueRecords: 0\n  sendQueueBytes: 1000\n  deliveryTimeoutMs: 10\n"
                        + "submits:\n  writers: 0\n  maxGroup: 0\n  lingerMs: -1\n"
                        + "results:\n  writers: 0\n  maxGroup: 100\n  aloneFrom: 101\n");
        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("engine.claimBatch")
                .hasMessageContaining("cluster.shards")
                .hasMessageContaining("kafka.sendQueueRecords")
                .hasMessageContaining("kafka.sendQueueBytes")
                .hasMessageContaining("kafka.deliveryTimeoutMs")
                .hasMessageContaining("submits.writers")
                .hasMessageContaining("submits.maxGroup")
                .hasMessageContaining("submits.lingerMs")
                .hasMessageContaining("results.writers")
                .hasMessageContaining("results.aloneFrom");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("HOURGLASS_HTTP_PORT", "eighty")))
                .hasMessageContaining("HOURGLASS_HTTP_PORT");
        Path farAhead = dir.resolve("far-ahead.yaml");
        Files.writeString(farAhead, "limits:\n  maxFireAheadMs: 9223372036854775807\n");
        assertThatThrownBy(() -> ConfigLoader.load(farAhead, Map.of()))
                .as("a fire-ahead limit that would let job times overflow")
                .hasMessageContaining("limits.maxFireAheadMs");
        Path typo = dir.resolve("typo.yaml");
        Files.writeString(typo, "htp:\n  port: 1\n");
        assertThatThrownBy(() -> ConfigLoader.load(typo, Map.of())).hasMessageContaining("htp");
    }

    @Test
    void retentionAndTheEnginePoolHaveCheckedDefaults() throws Exception {
        NodeConfig c = ConfigLoader.load(null, Map.of());
        assertThat(c.retention.executionLogDays).isEqualTo(7);
        assertThat(c.retention.backlogDays).isEqualTo(30);
        assertThat(c.enginePoolSize()).as("claimThreads + 4").isEqualTo(8);
        Path file = dir.resolve("retention.yaml");
        Files.writeString(
                file,
                "database:\n  enginePoolSize: 12\nretention:\n  executionLogDays: 0\n  backlogDays: 90\n"
                        + "  batchSize: 500\n");
        NodeConfig custom = ConfigLoader.load(file, Map.of());
        assertThat(custom.enginePoolSize()).isEqualTo(12);
        assertThat(custom.retention.executionLogDays).as("0: kept for ever").isZero();
        assertThat(custom.retention.batchSize).isEqualTo(500);

        Path bad = dir.resolve("bad-retention.yaml");
        Files.writeString(
                bad,
                "database:\n  enginePoolSize: 3\nretention:\n  backlogDays: -1\n  batchSize: 0\n"
                        + "  intervalMs: 10\n");
        assertThatThrownBy(() -> ConfigLoader.load(bad, Map.of()))
                .hasMessageContaining("database.enginePoolSize")
                .hasMessageContaining("retention.backlogDays")
                .hasMessageContaining("retention.batchSize")
                .hasMessageContaining("retention.intervalMs");
    }

    @Test
    void theBacklogGaugesAreReadEveryTenSecondsUnlessSetWithinBounds() throws Exception {
        assertThat(new NodeConfig().metrics.backlogEveryMs).isEqualTo(10_000);
        Path set = dir.resolve("backlog.yaml");
        Files.writeString(set, "metrics:\n  backlogEveryMs: 300\n");
        assertThat(ConfigLoader.load(set, Map.of()).metrics.backlogEveryMs).isEqualTo(300);
        assertThat(ConfigLoader.load(set, Map.of("HOURGLASS_METRICS_BACKLOG_EVERY_MS", "2000")).metrics.backlogEveryMs)
                .isEqualTo(2_000);
        for (String refused : List.of("99", "3600001")) {
            Files.writeString(set, "metrics:\n  backlogEveryMs: " + refused + "\n");
            assertThatThrownBy(() -> ConfigLoader.load(set, Map.of()))
                    .hasMessageContaining("metrics.backlogEveryMs must be in 100..3600000");
        }
    }

    @Test
    void callbackConnectionsAreKeptFourSecondsIdleUnlessSetWithinBounds() throws Exception {
        assertThat(new NodeConfig().callbackKeepAliveMs).isEqualTo(4_000);
        Path set = dir.resolve("keep-alive.yaml");
        Files.writeString(set, "callbackKeepAliveMs: 1500\n");
        assertThat(ConfigLoader.load(set, Map.of()).callbackKeepAliveMs).isEqualTo(1_500);
        assertThat(ConfigLoader.load(set, Map.of("HOURGLASS_CALLBACK_KEEP_ALIVE_MS", "2000")).callbackKeepAliveMs)
                .isEqualTo(2_000);
        for (String bound : List.of("1000", "3600000")) {
            Files.writeString(set, "callbackKeepAliveMs: " + bound + "\n");
            assertThat(ConfigLoader.load(set, Map.of()).callbackKeepAliveMs).isEqualTo(Long.parseLong(bound));
        }
        for (String refused : List.of("999", "3600001")) {
            Files.writeString(set, "callbackKeepAliveMs: " + refused + "\n");
            assertThatThrownBy(() -> ConfigLoader.load(set, Map.of()))
                    .hasMessageContaining("callbackKeepAliveMs must be in 1000..3600000");
        }
    }

    @Test
    void kafkaProducerSettingsPassThroughWithTheirSecretsResolved() throws Exception {
        Path password = dir.resolve("kafka-password");
        Files.writeString(password, "pa$$word\\1\n"); // one line, as echo writes it
        Path file = dir.resolve("kafka.yaml");
        Files.writeString(
                file,
                "kafka:\n  producer:\n    security.protocol: SASL_SSL\n    sasl.mechanism: PLAIN\n"
                        + "    sasl.jaas.config: org.apache.kafka.common.security.plain.PlainLoginModule required"
                        + " username=\"${env:KAFKA_USER}\" password=\"${file:" + password + "}\";\n"
                        + "    ssl.truststore.password: ${env:TRUST}\n"
                        + "    linger.ms: 20\n    acks: all\n    enable.idempotence: true\n");
        NodeConfig c = ConfigLoader.load(file, Map.of("KAFKA_USER", "hourglass", "TRUST", "changeit"));
        assertThat(c.kafka.producer)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry(
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required"
                                + " username=\"hourglass\" password=\"pa$$word\\1\";")
                .containsEntry("ssl.truststore.password", "changeit")
                .containsEntry("linger.ms", "20")
                .as("the node's own value, given again, is accepted")
                .containsEntry("acks", "all");
        assertThat(c.kafka.settings().producer()).isEqualTo(c.kafka.producer);
    }

    @Test
    void kafkaProducerSettingsTheNodeNeedsOrDoesNotKnowAreRefusedByName() throws Exception {
        Path file = dir.resolve("bad-kafka.yaml");
        Files.writeString(
                file,
                "kafka:\n  producer:\n    acks: \"1\"\n    max.block.ms: 60000\n    enable.idempotence: false\n"
                        + "    bootstrap.servers: elsewhere:9092\n    transactional.id: tx\n    sasl.mechansim: PLAIN\n");
        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("kafka.producer.acks must be all")
                .hasMessageContaining("kafka.producer.max.block.ms must be 0")
                .hasMessageContaining("kafka.producer.enable.idempotence must be true")
                .hasMessageContaining("kafka.producer.bootstrap.servers is set by cluster.kafkaBootstrap")
                .hasMessageContaining("kafka.producer.transactional.id is not supported")
                .hasMessageContaining("kafka.producer.sasl.mechansim is not a Kafka producer setting");

        Path types = dir.resolve("bad-kafka-types.yaml");
        Files.writeString(types, "kafka:\n  producer:\n    linger.ms: soon\n");
        assertThatThrownBy(() -> ConfigLoader.load(types, Map.of()))
                .hasMessageContaining("kafka.producer")
                .hasMessageContaining("linger.ms");
        Path order = dir.resolve("bad-kafka-order.yaml");
        Files.writeString(
                order,
                "kafka:\n  producer:\n    max.in.flight.requests.per.connection: 10\n"
                        + "    request.timeout.ms: 30000\n");
        assertThatThrownBy(() -> ConfigLoader.load(order, Map.of()))
                .hasMessageContaining("kafka.producer.max.in.flight.requests.per.connection must be at most 5")
                .hasMessageContaining("must not exceed kafka.deliveryTimeoutMs");
    }

    @Test
    void aMissingSecretNamesItsSettingAndNeverTheSecret() throws Exception {
        Path file = dir.resolve("missing-secret.yaml");
        Files.writeString(
                file,
                "kafka:\n  producer:\n    ssl.keystore.password: ${env:NOT_SET}\n" + "    ssl.key.password: ${file:"
                        + dir.resolve("absent") + "}\n");
        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("kafka.producer.ssl.keystore.password: environment variable NOT_SET")
                .hasMessageContaining("kafka.producer.ssl.key.password: cannot read ${file:" + dir.resolve("absent"));
        Path providers = dir.resolve("kafka-providers.yaml");
        Files.writeString(
                providers,
                "kafka:\n  producer:\n    config.providers: file\n"
                        + "    config.providers.file.class: org.apache.kafka.common.config.provider.FileConfigProvider\n"
                        + "    ssl.key.password: ${file:/etc/hourglass/kafka.properties:keyPassword}\n");
        assertThat(ConfigLoader.load(providers, Map.of()).kafka.producer)
                .as("with Kafka's own config providers, Kafka resolves the references")
                .containsEntry("ssl.key.password", "${file:/etc/hourglass/kafka.properties:keyPassword}");
    }

    @Test
    void theZooKeeperCredentialComesFromTheFileTheEnvironmentOrASecretFile() throws Exception {
        Path secret = dir.resolve("zk-auth");
        Files.writeString(secret, "hourglass:from-a-file\n");
        Path file = dir.resolve("zk.yaml");
        Files.writeString(file, "cluster:\n  zkAuth: ${file:" + secret + "}\n");
        assertThat(ConfigLoader.load(file, Map.of()).cluster.zkAuth).isEqualTo("hourglass:from-a-file");
        assertThat(ConfigLoader.load(
                                null, Map.of("HOURGLASS_ZK_AUTH", "hourglass:${env:ZK_PASSWORD}", "ZK_PASSWORD", "pw"))
                        .cluster
                        .zkAuth)
                .isEqualTo("hourglass:pw");
        assertThat(ConfigLoader.knownVariables())
                .contains("HOURGLASS_ZK_AUTH", "HOURGLASS_HTTP_TLS_KEYSTORE", "HOURGLASS_HTTP_TLS_KEYSTORE_PASSWORD");
        for (String bad : new String[] {"hourglass", ":pw9", "hourglass: "}) {
            assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("HOURGLASS_ZK_AUTH", bad)))
                    .as(bad)
                    .hasMessageContaining("cluster.zkAuth must be user:password")
                    .hasMessageNotContaining(bad);
        }
    }
}
