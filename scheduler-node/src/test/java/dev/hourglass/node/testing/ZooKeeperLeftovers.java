package dev.hourglass.node.testing;

import java.io.File;

/** Curator's TestingServer leaves {@code zookeeper.configuration*.properties} in the temp dir. */
public final class ZooKeeperLeftovers {
    private ZooKeeperLeftovers() {}

    public static void delete() {
        File[] leftovers = new File(System.getProperty("java.io.tmpdir"))
                .listFiles((dir, name) -> name.startsWith("zookeeper.configuration"));
        if (leftovers != null) {
            for (File f : leftovers) {
                f.delete();
            }
        }
    }
}
