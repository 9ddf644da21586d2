package dev.hourglass.node.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * The standalone node's own ZooKeeper (docs/design.md, "Standalone mode": no ensemble configured,
 * so a one-node cluster), on 127.0.0.1 with its data in the node's data directory.
 *
 * <p>It starts empty every time. ZooKeeper restores the sessions of its snapshot and log, so after a
 * kill -9 the dead node stayed a member, the master and the owner of every shard until its session
 * expired, and the restarted node fired nothing for a session timeout (10 s by default). Its client
 * died with it, and nothing it kept there outlives a session but the shard assignment, which the
 * new master writes again.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private final ZooKeeperServerEmbedded server;
    private final String connectString;
    /** Held while the server runs: a second node on the same data directory must not wipe it. */
    private final FileChannel lockFile;

    public EmbeddedZooKeeper(Path dataDir) {
        this(dataDir, 5_000);
    }

    /** {@code lockWaitMs}: how long to wait for a server of this data directory that is closing. */
    EmbeddedZooKeeper(Path dataDir, long lockWaitMs) {
        FileChannel lock = null;
        try {
            Files.createDirectories(dataDir);
            lock = FileChannel.open(
                    dataDir.resolve("zookeeper.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            if (!lockWithin(lock, lockWaitMs)) {
                throw new IllegalStateException("another node's embedded ZooKeeper runs in the data directory "
                        + dataDir.toAbsolutePath() + ": give each node a dataDir of its own");
            }
            Path dir = dataDir.resolve("zookeeper");
            deleteTree(dir);
            Files.createDirectories(dir);
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            Properties p = new Properties();
            p.setProperty("clientPort", Integer.toString(port));
            p.setProperty("clientPortAddress", "127.0.0.1");
            p.setProperty("tickTime", "1000");
            p.setProperty("admin.enableServer", "false");
            p.setProperty("4lw.commands.whitelist", "");
            this.server = ZooKeeperServerEmbedded.builder()
                    .baseDir(dir)
                    .configuration(p)
                    .exitHandler(ExitHandler.LOG_ONLY)
                    .build();
            server.start(10_000);
            this.connectString = "127.0.0.1:" + port;
            this.lockFile = lock;
        } catch (Exception e) {
            closeQuietly(lock);
            throw new IllegalStateException("the embedded ZooKeeper did not start: " + e.getMessage(), e);
        }
    }

    /**
     * The lock, waiting a few seconds for it: a node of this JVM (tests, an embedding application)
     * that stopped a moment ago may still be closing its server.
     */
    private static boolean lockWithin(FileChannel lock, long maxMs) throws IOException, InterruptedException {
        long until = System.nanoTime() + maxMs * 1_000_000;
        while (true) {
            FileLock held;
            try {
                held = lock.tryLock();
            } catch (OverlappingFileLockException e) {
                held = null; // this JVM holds it
            }
            if (held != null) {
                return true;
            }
            if (System.nanoTime() - until > 0) {
                return false;
            }
            Thread.sleep(100);
        }
    }

    private static void closeQuietly(FileChannel lock) {
        if (lock != null) {
            try {
                lock.close(); // releases the lock
            } catch (IOException ignored) {
                // nothing to release
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    public String connectString() {
        return connectString;
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            closeQuietly(lockFile);
        }
    }
}
