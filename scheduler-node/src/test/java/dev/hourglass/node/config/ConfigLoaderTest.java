package dev.hourglass.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
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
                        + "submits:\n  writers: 0\n  maxGroup: 0\n");
        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("engine.claimBatch")
                .hasMessageContaining("cluster.shards")
                .hasMessageContaining("kafka.sendQueueRecords")
                .hasMessageContaining("kafka.sendQueueBytes")
                .hasMessageContaining("kafka.deliveryTimeoutMs")
                .hasMessageContaining("submits.writers")
                .hasMessageContaining("submits.maxGroup");
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
}
