package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.node.testing.RunsAlongside;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated admin token as a user meets it with the README's bare command: the data directory
 * and the token file are the owner's alone, the token is printed at the start that generated it
 * and never again, an empty file is replaced by a new token, and a too-short one refuses the start.
 */
@RunsAlongside
class AdminTokenIT {
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path work;

    /** The banner follows readiness by a few statements; a loaded CI machine can stretch that. */
    private static final Duration BANNER = Duration.ofSeconds(10);

    NodeProcess node;

    @AfterEach
    void stop() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    private NodeProcess start(String label) throws Exception {
        // no Dubbo: the token is the HTTP API's, and Dubbo's start is 2.5 s of each of the 4 starts
        node = NodeProcess.startStandalone(label, work.resolve("data"), "", false);
        return node;
    }

    private String log() throws Exception {
        return Files.readString(node.log(), StandardCharsets.UTF_8);
    }

    private String keptToken() throws Exception {
        return Files.readString(work.resolve("data/admin-token"), StandardCharsets.UTF_8)
                .trim();
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void theTokenIsTheOwnersAloneAndPrintedOnlyWhenGenerated() throws Exception {
        start("first").awaitReady();
        String token = keptToken();
        assertThat(token).hasSizeGreaterThanOrEqualTo(16);
        assertThat(node.awaitOutput("Admin token (new; kept in ", BANNER)).contains(token);
        assertThat(mode(work.resolve("data"))).isEqualTo("rwx------");
        assertThat(mode(work.resolve("data/admin-token"))).isEqualTo("rw-------");
        assertThat(new ApiClient(node.baseUrl(), token).get("/api/v1/apps").status())
                .isEqualTo(200);
        node.close();

        start("second").awaitReady();
        assertThat(keptToken()).isEqualTo(token);
        assertThat(node.awaitOutput("Admin token: the one kept in ", BANNER))
                .as("a later start keeps the secret out of its output")
                .doesNotContain(token);
        node.close();

        Files.writeString(work.resolve("data/admin-token"), "\n");
        start("empty-file").awaitReady();
        String renewed = keptToken();
        assertThat(renewed).hasSizeGreaterThanOrEqualTo(16).isNotEqualTo(token);
        assertThat(node.awaitOutput("Admin token (new; kept in ", BANNER)).contains(renewed);
        assertThat(mode(work.resolve("data/admin-token"))).isEqualTo("rw-------");
        ApiClient anonymous = new ApiClient(node.baseUrl(), "");
        assertThat(anonymous.get("/api/v1/apps").status())
                .as("an empty bearer token")
                .isEqualTo(401);
        assertThat(new ApiClient(node.baseUrl(), renewed).get("/api/v1/apps").status())
                .isEqualTo(200);
    }

    @Test
    void aTooShortKeptTokenRefusesTheStartNamingTheFile() throws Exception {
        Files.createDirectories(work.resolve("data"));
        Files.writeString(work.resolve("data/admin-token"), "abc\n");
        start("short");
        assertThat(node.awaitExit(Duration.ofSeconds(60))).isEqualTo(2);
        assertThat(log())
                .contains("bad configuration")
                .contains(work.resolve("data/admin-token").toString());
    }
}
