package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The standalone node's own ZooKeeper, a real server in this JVM. */
class EmbeddedZooKeeperTest {
    @TempDir
    Path dataDir;

    @Test
    void aSecondServerOnTheSameDataDirectoryIsRefusedAndWipesNothing() throws Exception {
        try (EmbeddedZooKeeper first = new EmbeddedZooKeeper(dataDir)) {
            try (CuratorFramework c = client(first)) {
                c.create().forPath("/kept", new byte[] {1});
                // after half a second instead of the 5 s a node waits for a server that is closing
                assertThatThrownBy(() -> new EmbeddedZooKeeper(dataDir, 500))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("give each node a dataDir of its own");
                assertThat(c.getData().forPath("/kept")).containsExactly(1);
            }
        }
    }

    @Test
    void itStartsEmptySoNoSessionOfAKilledNodeOutlivesIt() throws Exception {
        try (EmbeddedZooKeeper first = new EmbeddedZooKeeper(dataDir);
                CuratorFramework c = client(first)) {
            c.create().withMode(CreateMode.EPHEMERAL).forPath("/member", new byte[0]);
            c.create().forPath("/assignment", new byte[0]);
        } // (closing the client ends its session; a kill -9 would leave it in the data on disk)
        assertThat(Files.exists(dataDir.resolve("zookeeper"))).isTrue();
        try (EmbeddedZooKeeper again = new EmbeddedZooKeeper(dataDir);
                CuratorFramework c = client(again)) {
            assertThat(c.checkExists().forPath("/assignment")).isNull();
            assertThat(c.getChildren().forPath("/")).containsOnly("zookeeper");
        }
    }

    private static CuratorFramework client(EmbeddedZooKeeper server) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.newClient(server.connectString(), new RetryOneTime(100));
        c.start();
        assertThat(c.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS))
                .isTrue();
        return c;
    }
}
