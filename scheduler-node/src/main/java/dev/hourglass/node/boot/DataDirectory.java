package dev.hourglass.node.boot;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's data directory ({@code dataDir}): the generated admin token and the standalone H2
 * database, both readable by nobody but the node's user. On a file system without POSIX
 * permissions the permission steps are skipped.
 */
final class DataDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(DataDirectory.class);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private DataDirectory() {}

    /**
     * Creates the directory {@code rwx------} (0700), its missing parents as usual. An existing
     * directory is left as it is, since it may be one the operator shares on purpose (even
     * {@code .}); a warning says so when others can enter it.
     */
    static void createPrivate(Path dir) {
        try {
            if (!Files.isDirectory(dir)) {
                Path parent = dir.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                try {
                    Files.createDirectory(dir, ownerOnly(parent, OWNER_ONLY));
                    return;
                } catch (FileAlreadyExistsException raced) {
                    // made meanwhile by someone else: checked below like any existing directory
                }
            }
            if (posix(dir)) {
                Set<PosixFilePermission> p = Files.getPosixFilePermissions(dir);
                if (!OWNER_ONLY.containsAll(p)) {
                    LOG.warn(
                            "the data directory {} is open to others ({}); it holds the admin token and the"
                                    + " standalone database: chmod 700 it",
                            dir.toAbsolutePath(),
                            PosixFilePermissions.toString(p));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the data directory " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The attribute that creates a file or directory with these permissions, where POSIX has them. */
    static FileAttribute<?>[] ownerOnly(Path where, Set<PosixFilePermission> permissions) {
        return where != null && posix(where)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(permissions)}
                : new FileAttribute<?>[0];
    }

    static boolean posix(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
