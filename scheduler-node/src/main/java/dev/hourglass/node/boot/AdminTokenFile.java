package dev.hourglass.node.boot;

import dev.hourglass.node.config.ConfigException;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.tenant.Tokens;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin token kept in {@code <dataDir>/admin-token} when none is configured (README.md,
 * "Configuration": generated at first start, printed, kept in the data dir; docs/design.md,
 * "Secrets"). It is a secret that acts on every app,
 * so on a POSIX file system:
 *
 * <ul>
 *   <li>the data directory is created 0700 ({@link DataDirectory#createPrivate});
 *   <li>the file is written {@code rw-------} (0600) through a temporary file moved into place, so
 *       it never exists with wider permissions or half written; an existing file with wider
 *       permissions is narrowed to 0600 at start;
 *   <li>an empty or blank file counts as absent: a new token is generated and written (never is
 *       {@code ""} the admin token); a token shorter than {@value NodeConfig#MIN_ADMIN_TOKEN_LENGTH}
 *       characters refuses the start with a message naming the file, the same rule as for a
 *       configured {@code adminToken}.
 * </ul>
 *
 * On a file system without POSIX permissions the permission steps are skipped.
 */
final class AdminTokenFile {
    private static final Logger LOG = LoggerFactory.getLogger(AdminTokenFile.class);
    static final String NAME = "admin-token";
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");

    /** The token, and whether this start generated it (only then is it printed). */
    record Loaded(String token, boolean generated) {}

    private AdminTokenFile() {}

    static Loaded load(Path dataDir) {
        Path file = dataDir.resolve(NAME);
        try {
            DataDirectory.createPrivate(dataDir);
            if (Files.exists(file)) {
                narrowToOwnerOnly(file);
                String kept = Files.readString(file, StandardCharsets.UTF_8).trim();
                if (!kept.isEmpty()) {
                    if (kept.length() < NodeConfig.MIN_ADMIN_TOKEN_LENGTH) {
                        throw new ConfigException("the admin token in " + file + " is shorter than "
                                + NodeConfig.MIN_ADMIN_TOKEN_LENGTH
                                + " characters: put a longer one there, or delete the file to have one generated");
                    }
                    return new Loaded(kept, false);
                }
                LOG.warn("{} is empty: generating a new admin token", file);
            }
            String token = Tokens.newToken();
            writeOwnerOnly(file, token + "\n");
            return new Loaded(token, true);
        } catch (IOException e) {
            throw new ConfigException("cannot keep the admin token in " + file + ": " + e.getMessage(), e);
        }
    }

    private static void narrowToOwnerOnly(Path file) throws IOException {
        if (DataDirectory.posix(file) && !OWNER_ONLY_FILE.containsAll(Files.getPosixFilePermissions(file))) {
            Files.setPosixFilePermissions(file, OWNER_ONLY_FILE);
            LOG.info("{} was open to others: narrowed to rw-------", file);
        }
    }

    private static void writeOwnerOnly(Path file, String content) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path temp = Files.createTempFile(dir, NAME, ".tmp", DataDirectory.ownerOnly(dir, OWNER_ONLY_FILE));
        try {
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                out.write(ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8)));
                out.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
