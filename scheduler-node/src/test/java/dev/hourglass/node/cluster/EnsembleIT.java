package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;
import dev.hourglass.node.testing.ZooKeeperEnsembles;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;

/** Nodes on a three-server ZooKeeper ensemble keep firing when one server dies. */
@RunsAlongside
class EnsembleIT {
    @Test
    void theClusterKeepsFiringWithOneZooKeeperServerOfThreeDown() throws Exception {
        List<HourglassNode> nodes = new ArrayList<>();
        try (TestingCluster ensemble = ZooKeeperEnsembles.started(3);
                CallbackReceiver receiver = new CallbackReceiver();
                // closed first: nodes stopped after their ensemble retried it in the background for
                // half a minute, and held up the next class's Dubbo start as long
                AutoCloseable nodesFirst = () -> nodes.forEach(HourglassNode::close)) {
            String jdbcUrl = EmbeddedMariaDb.newDatabase();
            for (int i = 0; i < 2; i++) {
                NodeConfig c = TestNodes.config(jdbcUrl);
                c.cluster.zkConnect = ensemble.getConnectString();
                c.cluster.zkRoot = "/hg-ensemble";
                // shards stay put while a client moves to another server; at 6 s the sessions of a
                // JVM short of CPU beside other test JVMs (README, "Tests") could lapse, and
                // moved shards resend their attempts (the next attempt: allowed, but not "once")
                c.cluster.zkSessionTimeoutMs = 20_000;
                nodes.add(TestNodes.start(c));
            }
            ApiClient admin = new ApiClient(nodes.get(0).baseUrl(), TestNodes.ADMIN_TOKEN);
            ApiClient app = admin.as(admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                    .json()
                    .get("token")
                    .asText());
            app.put("/api/v1/services/s", "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}");
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            admin.get("/api/v1/cluster").json().get("nodes").size() == 2);

            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                ApiClient via = new ApiClient(nodes.get(i % 2).baseUrl(), app.token());
                JsonNode job = via.post("/api/v1/jobs", "{\"service\":\"s\",\"delayMs\":" + (1_000 + i * 20) + "}")
                        .json();
                ids.add(job.get("id").asText());
            }
            ensemble.killServer(ensemble.getInstances().iterator().next());

            await().atMost(Duration.ofSeconds(90))
                    .until(() -> receiver.countsByJob().keySet().containsAll(ids));
            assertThat(receiver.countsByJob().values())
                    .as("each delivered once")
                    .allMatch(c -> c == 1);
            String after = app.post("/api/v1/jobs", "{\"service\":\"s\",\"delayMs\":500}")
                    .json()
                    .get("id")
                    .asText();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> !receiver.receivedFor(after).isEmpty());
        } finally {
            ZooKeeperLeftovers.delete();
        }
    }
}
