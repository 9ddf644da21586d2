package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.node.testing.RunsPaired;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import java.time.Duration;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node stops on SIGTERM within {@code engine.shutdownGraceMs} plus a few seconds whatever its
 * servers are doing: here its ZooKeeper (cluster coordination and Dubbo registry) is gone, which
 * used to hold the stop for over 30 s in Curator's retry loop under Dubbo's shutdown hook.
 */
@RunsPaired
class NodeStopIT {
    private static final long GRACE_MS = 3_000;
    /** What the node's stop may take beyond its grace (docs/cluster.md, "Stopping a node"). */
    private static final long BEYOND_GRACE_MS = 5_000;

    TestingServer zookeeper;
    NodeProcess node;

    @AfterEach
    void cleanUp() throws Exception {
        if (node != null) {
            node.kill9();
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
        ZooKeeperLeftovers.delete();
    }

    @Test
    void aNodeWhoseZooKeeperIsGoneStopsWithinItsGrace() throws Exception {
        zookeeper = new TestingServer(true);
        node = NodeProcess.start(
                        "stopping",
                        EmbeddedMariaDb.newDatabase(),
                        zookeeper.getConnectString(),
                        "/hg-stop",
                        "engine:\n  shutdownGraceMs: " + GRACE_MS)
                .awaitReady();

        zookeeper.stop();
        Duration took = node.terminateWithin(Duration.ofSeconds(90));

        assertThat(took.toMillis())
                .as("ms from SIGTERM to exit, ZooKeeper down (log: %s)", node.log())
                .isLessThanOrEqualTo(GRACE_MS + BEYOND_GRACE_MS);
        System.out.printf("stopped in %d ms with ZooKeeper down%n", took.toMillis());
    }
}
