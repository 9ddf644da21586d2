package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.InProcessCluster;
import dev.hourglass.node.testing.RunsAlongside;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes whose ids hash alike, submitting in the same millisecond (a stopped clock makes that
 * certain): each job gets its own id and is acknowledged. With worker ids drawn from the node id's
 * hash both nodes made the very same id, and the second submit failed on the primary key.
 */
@RunsAlongside
class JobIdIT {
    InProcessCluster cluster;
    CallbackReceiver receiver;

    @AfterEach
    void stop() throws Exception {
        try {
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            receiver.close();
        }
    }

    @Test
    void nodesWhoseIdsHashAlikeMakeDistinctJobIds() throws Exception {
        receiver = new CallbackReceiver();
        cluster = new InProcessCluster();
        Clock stopped = Clock.fixed(Instant.now(), ZoneOffset.UTC);
        for (String id : List.of("node-Aa", "node-BB")) { // "Aa" and "BB" hash alike
            NodeConfig c = cluster.config();
            c.nodeId = id;
            cluster.start(c, stopped);
        }
        List<HourglassNode> nodes = cluster.nodes();
        ApiClient admin = cluster.admin();
        String token = cluster.newApp("shop").token();
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
