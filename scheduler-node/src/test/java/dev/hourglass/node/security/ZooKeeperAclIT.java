package dev.hourglass.node.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code cluster.zkAuth}: a node on a real ZooKeeper with a digest credential works as usual, and
 * the cluster's znodes are its credential's alone: a client without it, or with another password,
 * can neither read nor write the assignment, nor register a member.
 */
@RunsAlongside
class ZooKeeperAclIT {
    private static final String ROOT = "/secured-cluster";
    private static final String CREDENTIAL = "hourglass:zk-s3cret-for-tests";

    static TestingServer zookeeper;
    static NodeFixture f;

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer(true);
        f = new NodeFixture(c -> {
            c.cluster.zkConnect = zookeeper.getConnectString();
            c.cluster.zkRoot = ROOT;
            c.cluster.zkAuth = CREDENTIAL;
            c.dubbo.enabled = false;
        });
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (f != null) {
                f.close();
            }
        } finally {
            zookeeper.close();
            ZooKeeperLeftovers.delete();
        }
    }

    /** A plain ZooKeeper client, with the digest credential {@code auth} or none. */
    private static ZooKeeper client(String auth) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(zookeeper.getConnectString(), 10_000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertThat(connected.await(30, TimeUnit.SECONDS))
                .as("connected to ZooKeeper")
                .isTrue();
        if (auth != null) {
            zk.addAuthInfo("digest", auth.getBytes(StandardCharsets.UTF_8));
        }
        return zk;
    }

    @Test
    void theNodeWorksWithItsCredential() {
        String service = f.httpService("");
        String id = f.submit(service, 0, "").get("id").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> "FINISHED".equals(f.state(id)));
        assertThat(f.app.get("/api/v1/cluster").text()).contains(f.node.nodeId());
    }

    @Test
    void withoutTheCredentialTheClustersZnodesCanBeNeitherReadNorWritten() throws Exception {
        String assignment = ROOT + "/assignment";
        try (ZooKeeper owner = client(CREDENTIAL)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> owner.exists(assignment, false) != null);
            assertThat(new String(owner.getData(assignment, false, null), StandardCharsets.UTF_8))
                    .as("the credential reads the assignment")
                    .contains(f.node.nodeId());
            for (String path : List.of(ROOT, ROOT + "/nodes", assignment, ROOT + "/nodes/" + f.node.nodeId())) {
                List<ACL> acl = owner.getACL(path, new Stat());
                assertThat(acl).as("ACL of %s", path).hasSize(1);
                assertThat(acl.get(0).getId().getScheme()).isEqualTo("digest");
                assertThat(acl.get(0).getId().getId()).startsWith("hourglass:");
                assertThat(acl.get(0).getPerms()).isEqualTo(ZooDefs.Perms.ALL);
            }
        }
        for (String auth : new String[] {null, "hourglass:wrong-password"}) {
            try (ZooKeeper stranger = client(auth)) {
                String who = auth == null ? "a client without credential" : "a wrong password";
                assertThatThrownBy(() -> stranger.getData(assignment, false, null))
                        .as("%s reads the assignment", who)
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> stranger.setData(assignment, "{}".getBytes(StandardCharsets.UTF_8), -1))
                        .as("%s overwrites the assignment", who)
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> stranger.getChildren(ROOT + "/nodes", false))
                        .as("%s lists the members", who)
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> stranger.create(
                                ROOT + "/nodes/intruder",
                                "{}".getBytes(StandardCharsets.UTF_8),
                                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                                CreateMode.EPHEMERAL))
                        .as("%s registers a member", who)
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> stranger.delete(assignment, -1))
                        .as("%s deletes the assignment", who)
                        .isInstanceOf(KeeperException.NoAuthException.class);
            }
        }
        assertThat(f.app.get("/api/v1/cluster").text())
                .as("the node still sees itself")
                .contains(f.node.nodeId());
    }
}
