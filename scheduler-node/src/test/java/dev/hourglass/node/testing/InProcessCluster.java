package dev.hourglass.node.testing;

import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.curator.test.TestingServer;

/**
 * Nodes in this JVM forming one cluster: a fresh ZooKeeper server (a real one, in process), a
 * fresh database on the embedded MariaDB, a cluster root of their own. {@link #close()} stops the
 * nodes, then ZooKeeper, and removes the files ZooKeeper's test server leaves behind.
 */
public final class InProcessCluster implements AutoCloseable {
    private final TestingServer zookeeper;
    private final String jdbcUrl = EmbeddedMariaDb.newDatabase();
    private final String root = "/hg-" + System.nanoTime();
    private final List<HourglassNode> nodes = new ArrayList<>();

    public InProcessCluster() throws Exception {
        zookeeper = new TestingServer(true);
    }

    /** {@code count} nodes, each config adjusted by {@code tuning(index, config)} first. */
    public static InProcessCluster start(int count, BiConsumer<Integer, NodeConfig> tuning) throws Exception {
        InProcessCluster cluster = new InProcessCluster();
        try {
            for (int i = 0; i < count; i++) {
                NodeConfig c = cluster.config();
                tuning.accept(i, c);
                cluster.add(HourglassNode.start(c));
            }
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** A node's configuration on this cluster's database and ZooKeeper (see {@link TestNodes#config}). */
    public NodeConfig config() {
        NodeConfig c = TestNodes.config(jdbcUrl);
        c.cluster.zkConnect = zookeeper.getConnectString();
        c.cluster.zkRoot = root;
        return c;
    }

    /** Starts a node of this cluster on {@code clock}. */
    public HourglassNode start(NodeConfig config, Clock clock) {
        return add(HourglassNode.start(config, clock));
    }

    private HourglassNode add(HourglassNode node) {
        nodes.add(node);
        return node;
    }

    public List<HourglassNode> nodes() {
        return nodes;
    }

    /** The cluster's database, for tests that check what really is in it. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    public TestingServer zookeeper() {
        return zookeeper;
    }

    /** The admin's client on the first node. */
    public ApiClient admin() {
        return new ApiClient(nodes.get(0).baseUrl(), TestNodes.ADMIN_TOKEN);
    }

    /** Creates an app; its client on the first node. */
    public ApiClient newApp(String name) {
        String token = admin().post("/api/v1/apps", "{\"name\":\"" + name + "\"}")
                .json()
                .get("token")
                .asText();
        return admin().as(token);
    }

    /**
     * As {@link #close()}, with the nodes stopped together, each on a thread of its own, rather than
     * one after the other: for a teardown, where how the nodes leave is no part of the test. The
     * first failure of a node's stop is thrown once every node has stopped.
     */
    public void closeTogether() throws Exception {
        try {
            Together.close(nodes);
        } finally {
            zookeeper.close();
            ZooKeeperLeftovers.delete();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            nodes.forEach(HourglassNode::close);
        } finally {
            zookeeper.close();
            ZooKeeperLeftovers.delete();
        }
    }
}
