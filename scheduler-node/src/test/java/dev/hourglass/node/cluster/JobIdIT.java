package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.TestNodes;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes whose ids hash alike, submitting in the same millisecond (a stopped clock makes that
 * certain): each job gets its own id and is acknowledged. With worker ids drawn from the node id's
 * hash both nodes made the very same id, and the second submit failed on the primary key.
 */
class JobIdIT {
    TestingServer zookeeper;
    CallbackReceiver receiver;
    final List<HourglassNode> nodes = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        nodes.forEach(HourglassNode::close);
        receiver.close();
        zookeeper.close();
        ZooKeeperLeftovers.delete();
    }

    @Test
    void nodesWhoseIdsHashAlikeMakeDistinctJobIds() throws Exception {
        zookeeper = new TestingServer(true);
        receiver = new CallbackReceiver();
        String jdbcUrl = EmbeddedMariaDb.newDatabase();
        Clock stopped = Clock.fixed(Instant.now(), ZoneOffset.UTC);
        for (String id : List.of("node-Aa", "node-BB")) { // "Aa" and "BB" hash alike
            NodeConfig c = TestNodes.config(jdbcUrl);
            c.nodeId = id;
            c.cluster.zkConnect = zookeeper.getConnectString();
            c.cluster.zkRoot = "/hg-ids";
            nodes.add(HourglassNode.start(c, stopped));
        }
        ApiClient admin = new ApiClient(nodes.get(0).baseUrl(), TestNodes.ADMIN_TOKEN);
        String token = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText();
        admin.as(token).put("/api/v1/services/s", "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}");
        List<String> ids = new ArrayList<>();
        for (HourglassNode node : nodes) {
            ApiClient.Answer a = new ApiClient(node.baseUrl(), token)
                    .post("/api/v1/jobs", "{\"service\":\"s\",\"delayMs\":3600000}");
            assertThat(a.status()).as(a.text()).isEqualTo(201);
            ids.add(a.json().get("id").asText());
        }
        assertThat(ids).doesNotHaveDuplicates();
    }
}
