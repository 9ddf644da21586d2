package dev.hourglass.node.cluster;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * How the node authenticates to ZooKeeper and protects the cluster's znodes ({@code cluster.zkAuth}).
 *
 * <p>With a digest credential ({@code user:password}) the node's session authenticates with
 * ZooKeeper's {@code digest} scheme, and every znode it creates under the cluster's root — the root
 * itself, members, the leader election, the assignment, worker-id leases — gets
 * {@code CREATOR_ALL}: every permission for the identities of the creating session (the digest
 * user, and a SASL identity when the client also logs in by SASL), none for anyone else, not even
 * read. Every node of a cluster must use the same credential: a node with another one can read
 * nothing its peers wrote. Znodes outside the root (a shared parent of the root, Dubbo's registry)
 * are created open, as before.
 *
 * <p>ACLs are set when a znode is created: znodes that already exist keep theirs (docs/security.md
 * says how to lock down an existing cluster's).
 *
 * @param digest {@code user:password}, or null: no authentication, open znodes
 */
public record ZooKeeperAuth(String digest) {
    public static final ZooKeeperAuth NONE = new ZooKeeperAuth(null);

    public boolean enabled() {
        return digest != null && !digest.isEmpty();
    }

    /** Adds the authentication and the ACL provider to a client being built; nothing when not enabled. */
    CuratorFrameworkFactory.Builder applyTo(CuratorFrameworkFactory.Builder builder, String root) {
        if (!enabled()) {
            return builder;
        }
        return builder.authorization("digest", digest.getBytes(StandardCharsets.UTF_8))
                .aclProvider(new CreatorOnlyUnder(root));
    }

    /** {@code CREATOR_ALL} at and under the root, open elsewhere. */
    static final class CreatorOnlyUnder implements ACLProvider {
        private final String root;

        CreatorOnlyUnder(String root) {
            this.root = root;
        }

        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.OPEN_ACL_UNSAFE;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return path.equals(root) || path.startsWith(root + "/")
                    ? ZooDefs.Ids.CREATOR_ALL_ACL
                    : ZooDefs.Ids.OPEN_ACL_UNSAFE;
        }
    }

    @Override
    public String toString() {
        return enabled()
                ? "ZooKeeperAuth[digest " + digest.substring(0, Math.max(0, digest.indexOf(':'))) + "]"
                : "ZooKeeperAuth[none]";
    }
}
