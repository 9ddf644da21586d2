package dev.hourglass.node.dubbo;

import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.TestNodes;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import org.apache.curator.test.TestingServer;

/**
 * A node whose cluster ZooKeeper is a test server the test can reach too, so business providers
 * register in the same Dubbo registry as the node, plus an app "shop" and its token.
 */
final class DubboNode implements AutoCloseable {
    final TestingServer zookeeper;
    final HourglassNode node;
    final ApiClient admin;
    final ApiClient app;
    final String appToken;

    DubboNode() throws Exception {
        zookeeper = new TestingServer(true);
        NodeConfig config = TestNodes.config(EmbeddedMariaDb.newDatabase());
        config.cluster.zkConnect = zookeeper.getConnectString();
        node = TestNodes.start(config);
        admin = new ApiClient(node.baseUrl(), TestNodes.ADMIN_TOKEN);
        appToken = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText();
        app = admin.as(appToken);
    }

    /** The node's Dubbo registry, as a business provider or client names it. */
    String registry() {
        return "zookeeper://" + zookeeper.getConnectString();
    }

    String directUrl() {
        return "dubbo://127.0.0.1:" + node.dubboPort();
    }

    @Override
    public void close() throws Exception {
        node.close();
        zookeeper.close();
        ZooKeeperLeftovers.delete();
    }
}
