package dev.hourglass.node.testing;

import java.util.List;
import org.apache.curator.test.TestingServer;

/** What the tests that run node processes around one ZooKeeper and one receiver share. */
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

    /** Waits until two nodes are members and the first of them holds half of the 64 shards. */
    public static void awaitTwoNodesSharingTheShards(ApiClient admin) {
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(20))
                .until(() -> {
                    com.fasterxml.jackson.databind.JsonNode nodes =
                            admin.get("/api/v1/cluster").json().get("nodes");
                    return nodes.size() == 2 && nodes.get(0).get("shards").size() == 32;
                });
    }
}
