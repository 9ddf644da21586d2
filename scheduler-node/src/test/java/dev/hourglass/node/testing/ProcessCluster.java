package dev.hourglass.node.testing;

import java.util.List;
import org.apache.curator.test.TestingServer;

/** Teardown shared by the tests that run node processes around one ZooKeeper and one receiver. */
public final class ProcessCluster {
    private ProcessCluster() {}

    public static void stop(List<NodeProcess> nodes, CallbackReceiver receiver, TestingServer zookeeper)
            throws Exception {
        for (NodeProcess n : nodes) {
            n.close();
        }
        receiver.close();
        zookeeper.close();
        ZooKeeperLeftovers.delete();
    }
}
