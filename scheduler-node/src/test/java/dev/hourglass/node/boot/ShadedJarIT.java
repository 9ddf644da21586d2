package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The runnable jar the README starts (built in {@code package}, before the integration tests):
 * resources that several dependencies ship under one path must be merged, not overwritten.
 */
class ShadedJarIT {
    private static final Path JAR = Path.of("target", "hourglass-node.jar");

    @Test
    void theJarKeepsDubbosSerializationAllowListAndOurs() throws IOException {
        assertThat(JAR).as("built by the package phase").exists();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo(Main.class.getName());
            String allowList = text(jar, "security/serialize.allowlist");
            assertThat(allowList).as("ours: the API's DTOs and exception").contains("dev.hourglass.api");
            assertThat(allowList)
                    .as("Dubbo's own: without it hessian's java.time handles are refused and every call fails")
                    .contains("com.alibaba.com.caucho.hessian.io");
            assertThat(jar.getEntry("META-INF/dubbo/internal/org.apache.dubbo.rpc.Protocol"))
                    .as("Dubbo's extension files")
                    .isNotNull();
            assertThat(jar.getEntry("db/migration/V1__schema.sql")).isNotNull();
        }
        assertThat(Files.size(JAR)).isGreaterThan(1_000_000);
    }

    private static String text(JarFile jar, String name) throws IOException {
        assertThat(jar.getEntry(name)).as(name).isNotNull();
        try (InputStream in = jar.getInputStream(jar.getEntry(name))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
