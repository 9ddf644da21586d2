package dev.hourglass.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnvironmentVariablesTest {
    @TempDir
    Path tmp;

    @Test
    void everySettingHasAVariableNamedByItsPath() {
        assertThat(EnvironmentVariables.variableOf("engine.shutdownGraceMs"))
                .isEqualTo("HOURGLASS_ENGINE_SHUTDOWN_GRACE_MS");
        Map<String, String> settings = EnvironmentVariables.settings();
        assertThat(settings)
                .containsEntry("HOURGLASS_ENGINE_SHUTDOWN_GRACE_MS", "engine.shutdownGraceMs")
                .containsEntry("HOURGLASS_DATABASE_POOL_SIZE", "database.poolSize")
                .containsEntry("HOURGLASS_HTTP_TLS_KEY_STORE_PASSWORD", "http.tls.keyStorePassword")
                .containsEntry("HOURGLASS_CALLBACK_ALLOW", "callbackAllow")
                .containsEntry("HOURGLASS_DUBBO_ENABLED", "dubbo.enabled");
        NodeConfig c = ConfigLoader.load(
                null,
                Map.of(
                        "HOURGLASS_ENGINE_SHUTDOWN_GRACE_MS", "4000",
                        "HOURGLASS_DATABASE_POOL_SIZE", "7",
                        "HOURGLASS_DUBBO_ENABLED", "false",
                        "HOURGLASS_CALLBACK_ALLOW", "10.0.0.0/8, hooks.example.com"));
        assertThat(c.engine.shutdownGraceMs).isEqualTo(4_000);
        assertThat(c.database.poolSize).isEqualTo(7);
        assertThat(c.dubbo.enabled).isFalse();
        assertThat(c.callbackAllow).containsExactly("10.0.0.0/8", "hooks.example.com");
    }

    @Test
    void aSecretMayComeFromAFileNamedByTheVariableWithFile() throws Exception {
        Path password = Files.writeString(tmp.resolve("db-password"), "s3cret\n");
        Path token = Files.writeString(tmp.resolve("admin-token"), "a".repeat(40) + "\n");
        Path jaas = Files.writeString(
                tmp.resolve("jaas"), "org.apache.kafka.common.security.plain.PlainLoginModule required;");
        NodeConfig c = ConfigLoader.load(
                null,
                Map.of(
                        "HOURGLASS_DB_PASSWORD_FILE", password.toString(),
                        "HOURGLASS_ADMIN_TOKEN_FILE", token.toString(),
                        "HOURGLASS_KAFKA_SASL_JAAS_CONFIG_FILE", jaas.toString()));
        assertThat(c.database.password).isEqualTo("s3cret");
        assertThat(c.adminToken).isEqualTo("a".repeat(40));
        assertThat(c.kafka.producer).containsEntry("sasl.jaas.config", Files.readString(jaas));
        assertThatThrownBy(() -> ConfigLoader.load(
                        null, Map.of("HOURGLASS_DB_PASSWORD", "x", "HOURGLASS_DB_PASSWORD_FILE", password.toString())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("both set");
        assertThatThrownBy(() -> ConfigLoader.load(
                        null,
                        Map.of(
                                "HOURGLASS_DB_PASSWORD_FILE",
                                tmp.resolve("missing").toString())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("HOURGLASS_DB_PASSWORD_FILE")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void anUnknownHourglassVariableIsRefusedAtStart() {
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("HOURGLASS_ENGINE_SHUTDOWN_GRACE", "4000")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown environment variable HOURGLASS_ENGINE_SHUTDOWN_GRACE");
        // other tools' variables, and everything not HOURGLASS_*, are not the node's to judge
        ConfigLoader.load(
                null, Map.of("HOURGLASS_LOG_FORMAT", "JSON", "HOURGLASS_TEST_DB_URL", "jdbc:x", "PATH", "/usr/bin"));
    }

    @Test
    void theOperationsGuideListsEveryVariable() throws Exception {
        StringBuilder table = new StringBuilder("| variable | setting |\n|---|---|\n");
        EnvironmentVariables.settings().forEach((variable, path) -> table.append("| `")
                .append(variable)
                .append("` | `")
                .append(path)
                .append("` |\n"));
        String guide = Files.readString(Path.of("..", "docs", "operations.md"));
        assertThat(guide)
                .as("docs/operations.md, \"Environment variables\", holds this generated table")
                .contains(table.toString());
    }
}
