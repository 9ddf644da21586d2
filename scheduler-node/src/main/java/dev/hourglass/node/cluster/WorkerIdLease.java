package dev.hourglass.node.cluster;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker id (0..1023) this node puts into the job ids it generates, leased through ZooKeeper so
 * that no two live nodes share one: the lease is an ephemeral znode {@code {root}/workers/{id}}
 * holding the node id, created by the first node to ask for that number. A node first asks for the
 * number its id hashes to (so a node usually keeps its number across restarts), then the next ones.
 *
 * <p>An ephemeral znode lives as long as the session: after a session loss the lease is gone and
 * another node may take the number, so {@link #ensureHeld()} (called after every reconnect) takes a
 * number again — the same one if it is still free. Between the loss and the new lease, ids made
 * with the old number could in theory meet another node's: the store's primary key catches that,
 * and the insert is retried with fresh ids.
 *
 * <p>A graceful leave closes the session, which deletes the lease with it; after a crash it goes when
 * the session times out. Not thread-safe: called on the coordinator's thread.
 */
final class WorkerIdLease {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerIdLease.class);
    static final int WORKER_IDS = 1024;

    private final CuratorFramework client;
    private final String path;
    private final String nodeId;
    private int held = -1;

    WorkerIdLease(CuratorFramework client, String path, String nodeId) {
        this.client = client;
        this.path = path;
        this.nodeId = nodeId;
    }

    /** The number held, or -1 before the first lease. */
    int held() {
        return held;
    }

    /** Takes a number (keeping the one held when this session still holds it); returns it. */
    int ensureHeld() throws Exception {
        if (held >= 0 && holds(held)) {
            return held;
        }
        int preferred = Math.floorMod(nodeId.hashCode(), WORKER_IDS);
        for (int i = 0; i < WORKER_IDS; i++) {
            int candidate = (preferred + i) % WORKER_IDS;
            if (tryTake(candidate)) {
                if (candidate != held) {
                    LOG.info("{} generates job ids as worker {}", nodeId, candidate);
                }
                held = candidate;
                return held;
            }
        }
        throw new IllegalStateException("all " + WORKER_IDS + " worker ids are taken");
    }

    private boolean tryTake(int worker) throws Exception {
        try {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath(path + "/" + worker, nodeId.getBytes(StandardCharsets.UTF_8));
            return true;
        } catch (KeeperException.NodeExistsException e) {
            return holds(worker);
        }
    }

    /** Whether this session owns the number's znode (after a reconnect with the same session). */
    private boolean holds(int worker) throws Exception {
        Stat stat = new Stat();
        try {
            byte[] data = client.getData().storingStatIn(stat).forPath(path + "/" + worker);
            return nodeId.equals(new String(data, StandardCharsets.UTF_8))
                    && stat.getEphemeralOwner()
                            == client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (KeeperException.NoNodeException e) {
            return false;
        }
    }
}
