package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.hourglass.node.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rules of the admin token kept in the data directory (see {@link AdminTokenFile}). */
class AdminTokenFileTest {
    @TempDir
    Path temp;

    Path dataDir;
    Path file;

    @BeforeEach
    void paths() {
        assumeTrue(temp.getFileSystem().supportedFileAttributeViews().contains("posix"), "a POSIX file system");
        dataDir = temp.resolve("parent/data");
        file = dataDir.resolve("admin-token");
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void theFirstStartGeneratesATokenOwnerOnlyInAnOwnerOnlyDirectoryAndTheNextStartKeepsIt() throws Exception {
        AdminTokenFile.Loaded first = AdminTokenFile.load(dataDir);
        assertThat(first.generated()).isTrue();
        assertThat(first.token()).hasSizeGreaterThanOrEqualTo(16);
        assertThat(Files.readString(file, StandardCharsets.UTF_8).trim()).isEqualTo(first.token());
        assertThat(mode(file)).isEqualTo("rw-------");
        assertThat(mode(dataDir)).isEqualTo("rwx------");
        try (Stream<Path> files = Files.list(dataDir)) {
            assertThat(files).as("no temporary file left behind").containsExactly(file);
        }

        AdminTokenFile.Loaded second = AdminTokenFile.load(dataDir);
        assertThat(second.generated()).isFalse();
        assertThat(second.token()).isEqualTo(first.token());
    }

    @Test
    void anEmptyOrBlankFileCountsAsAbsentAndANewTokenIsWritten() throws Exception {
        for (String empty : new String[] {"", "  \n", "\n\n"}) {
            Files.createDirectories(dataDir);
            Files.writeString(file, empty);
            AdminTokenFile.Loaded loaded = AdminTokenFile.load(dataDir);
            assertThat(loaded.generated()).as("file '%s'", empty).isTrue();
            assertThat(loaded.token()).hasSizeGreaterThanOrEqualTo(16);
            assertThat(Files.readString(file).trim()).isEqualTo(loaded.token());
            assertThat(mode(file)).isEqualTo("rw-------");
        }
    }

    @Test
    void aTooShortTokenRefusesTheStartNamingTheFile() throws Exception {
        Files.createDirectories(dataDir);
        Files.writeString(file, "short-token\n");
        assertThatThrownBy(() -> AdminTokenFile.load(dataDir))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("16 characters");
        assertThat(Files.readString(file)).as("left as it was").isEqualTo("short-token\n");
    }

    @Test
    void aKeptTokenOpenToOthersIsNarrowedToTheOwner() throws Exception {
        Files.createDirectories(dataDir);
        String token = "kept-token-0123456789abcdef";
        Files.writeString(file, token + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        AdminTokenFile.Loaded loaded = AdminTokenFile.load(dataDir);
        assertThat(loaded.token()).isEqualTo(token);
        assertThat(loaded.generated()).isFalse();
        assertThat(mode(file)).isEqualTo("rw-------");
    }

    @Test
    void anExistingDataDirectoryKeepsItsPermissions() throws Exception {
        Files.createDirectories(dataDir);
        Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxr-x---"));
        AdminTokenFile.load(dataDir);
        assertThat(mode(dataDir)).as("an operator's directory is not changed").isEqualTo("rwxr-x---");
        assertThat(mode(file)).isEqualTo("rw-------");
    }
}
