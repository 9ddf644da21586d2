package dev.hourglass.node.testing;

import java.util.List;
import org.apache.curator.test.TestingServer;

/** Teardown shared by the tests that run node processes around one ZooKeeper and one receiver. */
public final class ProcessCluster {
    private ProcessCluster() {}

    public static void stop(List<NodeProcess> nodes, CallbackReceiver receiver, TestingServer zookeeper)
            throws Exception {
        try {
            for (NodeProcess n : nodes) {
                if (n != null) {
                    n.close(); // SIGTERM, then SIGKILL after 30 s: never leaves a process behind
                }
            }
        } finally {
            receiver.close();
            zookeeper.close();
            ZooKeeperLeftovers.delete();
        }
    }
}
