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

    /**
     * As {@link #stop}, with the nodes stopped together: each gets its SIGTERM at once and is then
     * waited for (and killed after 30 s) on a thread of its own, as {@link NodeProcess#close()}
     * does one node at a time. For a teardown, where how the nodes leave is no part of the test:
     * one after the other, each graceful stop (a second or two) added to it.
     */
    public static void stopTogether(List<NodeProcess> nodes, CallbackReceiver receiver, TestingServer zookeeper)
            throws Exception {
        try {
            Together.close(nodes);
        } finally {
            receiver.close();
            zookeeper.close();
            ZooKeeperLeftovers.delete();
        }
    }

    /** Waits until two nodes are members and the first of them holds half of the 64 shards. */
    public static void awaitTwoNodesSharingTheShards(ApiClient admin) {
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(60))
                .until(() -> {
                    com.fasterxml.jackson.databind.JsonNode nodes =
                            admin.get("/api/v1/cluster").json().get("nodes");
                    return nodes.size() == 2 && nodes.get(0).get("shards").size() == 32;
                });
    }
}
