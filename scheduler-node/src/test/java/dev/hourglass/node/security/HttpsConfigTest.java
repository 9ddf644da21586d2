package dev.hourglass.node.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.node.api.http.TlsKeyStore;
import dev.hourglass.node.config.ConfigException;
import dev.hourglass.node.config.ConfigLoader;
import dev.hourglass.node.config.NodeConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code http.tls.*}: a key store that cannot serve HTTPS stops the start with a message naming the setting. */
class HttpsConfigTest {
    @TempDir
    Path dir;

    private Path yaml(String tls) throws Exception {
        Path file = dir.resolve("tls-" + System.nanoTime() + ".yaml");
        Files.writeString(file, "http:\n  tls:\n" + tls);
        return file;
    }

    @Test
    void aKeyStoreWithItsPasswordFromAFileIsAccepted() throws Exception {
        SelfSignedKeyStore store = SelfSignedKeyStore.create(dir, "PKCS12", "pkcs-password");
        Path password = dir.resolve("password");
        Files.writeString(password, store.password + "\n");
        NodeConfig c = ConfigLoader.load(
                yaml("    keyStore: " + store.path + "\n    keyStorePassword: ${file:" + password + "}\n"), Map.of());
        assertThat(c.http.tls.keyStorePassword).isEqualTo("pkcs-password");
        assertThat(c.http.tls.keyStore().problems()).isEmpty();
        assertThat(c.http.tls.keyStore().toString()).doesNotContain("pkcs-password");

        SelfSignedKeyStore jks = SelfSignedKeyStore.create(dir, "JKS", "jks-password");
        NodeConfig fromEnv = ConfigLoader.load(
                yaml("    keyStoreType: JKS\n"),
                Map.of(
                        "HOURGLASS_HTTP_TLS_KEYSTORE",
                        jks.path.toString(),
                        "HOURGLASS_HTTP_TLS_KEYSTORE_PASSWORD",
                        "jks-password"));
        assertThat(fromEnv.http.tls.keyStore()).isEqualTo(new TlsKeyStore(jks.path, "JKS", "jks-password", null));
    }

    @Test
    void aWrongPasswordAMissingFileOrAnUnknownTypeIsNamed() throws Exception {
        SelfSignedKeyStore store = SelfSignedKeyStore.create(dir, "PKCS12", "pkcs-password");
        assertThatThrownBy(() -> ConfigLoader.load(
                        yaml("    keyStore: " + store.path + "\n    keyStorePassword: wrong\n"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("http.tls.keyStorePassword does not open")
                .hasMessageNotContaining("wrong");
        assertThatThrownBy(() -> ConfigLoader.load(
                        yaml("    keyStore: " + dir.resolve("absent.p12") + "\n    keyStorePassword: x\n"), Map.of()))
                .hasMessageContaining("http.tls.keyStore " + dir.resolve("absent.p12") + " cannot be read");
        assertThatThrownBy(() -> ConfigLoader.load(
                        yaml("    keyStore: " + store.path + "\n    keyStoreType: PEM\n    keyStorePassword: x\n"),
                        Map.of()))
                .hasMessageContaining("http.tls.keyStoreType must be one of");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("    keyStore: " + store.path + "\n"), Map.of()))
                .hasMessageContaining("http.tls.keyStorePassword must be set");
        assertThatThrownBy(() -> ConfigLoader.load(
                        yaml("    keyStore: " + store.path + "\n    keyStorePassword: ${env:TLS_PASSWORD}\n"),
                        Map.of()))
                .hasMessageContaining("http.tls.keyStorePassword: environment variable TLS_PASSWORD");
    }
}
