package dev.hourglass.node.testing;

import java.io.File;

/**
 * Curator's TestingServer leaves {@code zookeeper.configuration*.properties} in the temp dir. Only
 * files a minute old go: a server starting in the other test JVM ({@link RunsAlongside}) writes
 * its file there and reads it back at once.
 */
public final class ZooKeeperLeftovers {
    private static final long AGE_MS = 60_000;

    private ZooKeeperLeftovers() {}

    public static void delete() {
        long before = System.currentTimeMillis() - AGE_MS;
        File[] leftovers = new File(System.getProperty("java.io.tmpdir"))
                .listFiles((dir, name) -> name.startsWith("zookeeper.configuration"));
        if (leftovers != null) {
            for (File f : leftovers) {
                if (f.lastModified() < before) {
                    f.delete();
                }
            }
        }
    }
}
