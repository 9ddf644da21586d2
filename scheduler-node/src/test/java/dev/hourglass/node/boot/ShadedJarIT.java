package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.testing.RunsAlongside;
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
@RunsAlongside
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

    @Test
    void theJarCarriesTheNativeLibrariesOfLinuxX8664AndArm64Only() throws IOException {
        java.util.List<String> natives = new java.util.ArrayList<>();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            jar.stream()
                    .map(java.util.jar.JarEntry::getName)
                    .filter(n -> n.matches(".*\\.(so|dll|jnilib|dylib|a)$"))
                    .forEach(natives::add);
        }
        assertThat(natives)
                .as("Netty's OpenSSL and QUIC, zstd, snappy, lz4: what Linux x86-64 and ARM64 load")
                .contains(
                        "META-INF/native/libnetty_tcnative_linux_x86_64.so",
                        "META-INF/native/libnetty_tcnative_linux_aarch_64.so",
                        "linux/amd64/libzstd-jni-1.5.6-10.so",
                        "linux/aarch64/libzstd-jni-1.5.6-10.so",
                        "org/xerial/snappy/native/Linux/x86_64/libsnappyjava.so",
                        "org/xerial/snappy/native/Linux/aarch64/libsnappyjava.so");
        assertThat(natives)
                .as("no other system's")
                .allMatch(n -> n.matches("META-INF/native/lib[a-z0-9_]+_(x86_64|aarch_64)\\.so")
                        || n.matches("(.*/)?(linux|Linux)/(amd64|x86_64|aarch64)/.*\\.so"));
    }

    @Test
    void theBuildWritesTheNodesBillOfMaterials() throws IOException {
        Path sbom = Path.of("target", "hourglass-node-sbom.json");
        assertThat(sbom).as("CycloneDX, made by the package phase").exists();
        String text = Files.readString(sbom);
        assertThat(text)
                .containsPattern("\"bomFormat\"\\s*:\\s*\"CycloneDX\"")
                .contains("pkg:maven/io.netty/netty-handler@")
                .contains("pkg:maven/org.apache.kafka/kafka-clients@")
                .doesNotContain("pkg:maven/org.junit");
    }

    @Test
    void theJarSaysItsVersion() throws Exception {
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-jar",
                        JAR.toString(),
                        "--version")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).isZero();
        assertThat(out).isEqualTo("hourglass-node " + BuildInfo.version());
        assertThat(BuildInfo.version()).isNotEqualTo("unknown").doesNotContain("${");
    }

    private static String text(JarFile jar, String name) throws IOException {
        assertThat(jar.getEntry(name)).as(name).isNotNull();
        try (InputStream in = jar.getInputStream(jar.getEntry(name))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
