package dev.hourglass.node.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.ArrayList;
import java.util.List;

/**
 * The node's whole configuration, one typed object: read from YAML ({@code --config FILE}), then
 * overridden by {@code HOURGLASS_*} environment variables, then {@link #validate()}d. Every field
 * has the default documented in the README's configuration reference.
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public class NodeConfig {
    /** Node id in the cluster; generated when empty. */
    public String nodeId;
    /** Standalone data: the H2 database, the generated admin token. */
    public String dataDir = "./data";
    /** The admin token; generated at first start and kept in the data dir when empty. */
    public String adminToken;

    public Http http = new Http();
    public Database database = new Database();
    public Engine engine = new Engine();
    public Limits limits = new Limits();
    public Cluster cluster = new Cluster();
    public Dubbo dubbo = new Dubbo();
    /** Hosts and CIDRs allowed as HTTP callback targets. */
    public List<String> callbackAllow = new ArrayList<>(List.of("127.0.0.1", "localhost"));

    public static class Http {
        public String host = "0.0.0.0";
        public int port = 8080;
        /** Largest accepted request body (batch submits), bytes. */
        public long maxRequestBytes = 8L * 1024 * 1024;
    }

    public static class Database {
        /** MySQL/MariaDB JDBC URL; empty means standalone on H2 in the data dir. */
        public String url;

        public String user;
        public String password;
        public int poolSize = 16;
    }

    public static class Engine {
        public long loadWindowMs = 60_000;
        public long loadIntervalMs = 1_000;
        public long catchUpIntervalMs = 2_000;
        public long timeoutSweepIntervalMs = 1_000;
        public int indexCapacity = 200_000;
        public int claimBatch = 500;
        public int claimThreads = 4;
        public int resultBatch = 500;
        /** Claim jobs this long before their fire time (sent exactly at it); 0: claim at the fire time. */
        public long claimLeadMs = 100;
        /** How long a graceful stop waits for deliveries under way. */
        public long shutdownGraceMs = 10_000;
    }

    public static class Limits {
        public int maxPayloadBytes = 64 * 1024;
        public long maxFireAheadMs = 10L * 366 * 24 * 3600 * 1000;
        public int maxBatch = 1_000;
        public int maxAttributes = 16;
    }

    public static class Cluster {
        /** Fixed number of shards of the job space. Never change it on a cluster with jobs. */
        public int shards = 64;
        /** ZooKeeper ensemble; empty means an embedded ZooKeeper in the data dir (one-node cluster). */
        public String zkConnect;
        /** Root of this cluster's znodes: several clusters can share one ensemble. */
        public String zkRoot = "/hourglass";

        public int zkSessionTimeoutMs = 10_000;

        public String kafkaBootstrap;
    }

    public static class Dubbo {
        /** Export {@code DelayJobService} and deliver DUBBO services; false: neither. */
        public boolean enabled = true;
        /** Dubbo protocol port; 0: a free port, chosen at start. */
        public int port = 20880;
        /**
         * The address this node registers (and binds, unless it is a loopback address: Dubbo then
         * listens on every interface); empty: the machine's address, as Dubbo picks it. A loopback
         * address keeps all Dubbo traffic of this node on loopback (tests, single-machine demos).
         */
        public String host;
        /**
         * Where providers are found and this node is registered: {@code cluster} (the cluster's
         * ZooKeeper), {@code none} (DUBBO services then need a direct {@code url}), or a Dubbo
         * registry URL such as {@code zookeeper://zk1:2181}.
         */
        public String registry = "cluster";
        /**
         * How often the connection to a business provider that went away is tried again: a provider
         * restarted on the same address is called again within about this plus a second. Also the
         * heartbeat interval on idle provider connections; a connection that reads nothing for three
         * times this is rebuilt.
         */
        public int reconnectMs = 2_000;
    }

    public boolean isStandalone() {
        return database.url == null || database.url.isBlank();
    }

    /** Fails with one message that names every bad setting. */
    public void validate() {
        List<String> errors = new ArrayList<>();
        check(errors, http.port >= 0 && http.port <= 65535, "http.port must be in 0..65535");
        check(errors, http.maxRequestBytes >= 1024, "http.maxRequestBytes must be at least 1024");
        check(errors, dataDir != null && !dataDir.isBlank(), "dataDir must be set");
        check(errors, database.poolSize >= 2 && database.poolSize <= 500, "database.poolSize must be in 2..500");
        check(errors, engine.loadWindowMs >= 1_000, "engine.loadWindowMs must be at least 1000");
        check(
                errors,
                engine.loadIntervalMs >= 10 && engine.loadIntervalMs < engine.loadWindowMs,
                "engine.loadIntervalMs must be at least 10 and below engine.loadWindowMs");
        check(errors, engine.catchUpIntervalMs >= 10, "engine.catchUpIntervalMs must be at least 10");
        check(errors, engine.timeoutSweepIntervalMs >= 10, "engine.timeoutSweepIntervalMs must be at least 10");
        check(errors, engine.indexCapacity >= 100, "engine.indexCapacity must be at least 100");
        check(errors, engine.claimBatch >= 1 && engine.claimBatch <= 5_000, "engine.claimBatch must be in 1..5000");
        check(errors, engine.claimThreads >= 1 && engine.claimThreads <= 64, "engine.claimThreads must be in 1..64");
        check(errors, engine.resultBatch >= 1 && engine.resultBatch <= 5_000, "engine.resultBatch must be in 1..5000");
        check(errors, engine.claimLeadMs >= 0 && engine.claimLeadMs <= 5_000, "engine.claimLeadMs must be in 0..5000");
        check(errors, engine.shutdownGraceMs >= 0, "engine.shutdownGraceMs must not be negative");
        check(errors, limits.maxPayloadBytes >= 16, "limits.maxPayloadBytes must be at least 16");
        check(errors, limits.maxFireAheadMs >= 1_000, "limits.maxFireAheadMs must be at least 1000");
        check(errors, limits.maxBatch >= 1 && limits.maxBatch <= 10_000, "limits.maxBatch must be in 1..10000");
        check(
                errors,
                limits.maxAttributes >= 0 && limits.maxAttributes <= 256,
                "limits.maxAttributes must be in 0..256");
        check(errors, cluster.shards >= 1 && cluster.shards <= 4096, "cluster.shards must be in 1..4096");
        check(
                errors,
                cluster.zkRoot != null && cluster.zkRoot.matches("(/[A-Za-z0-9._-]+)+"),
                "cluster.zkRoot must be a ZooKeeper path like /hourglass");
        check(
                errors,
                cluster.zkSessionTimeoutMs >= 2_000 && cluster.zkSessionTimeoutMs <= 120_000,
                "cluster.zkSessionTimeoutMs must be in 2000..120000");
        check(errors, dubbo.port >= 0 && dubbo.port <= 65535, "dubbo.port must be in 0..65535");
        check(
                errors,
                dubbo.reconnectMs >= 500 && dubbo.reconnectMs <= 60_000,
                "dubbo.reconnectMs must be in 500..60000");
        check(
                errors,
                dubbo.registry != null
                        && (dubbo.registry.equals("cluster")
                                || dubbo.registry.equals("none")
                                || dubbo.registry.matches("[a-z][a-z0-9+.-]*://.+")),
                "dubbo.registry must be cluster, none or a registry URL like zookeeper://host:2181");
        check(errors, adminToken == null || adminToken.length() >= 16, "adminToken must be at least 16 characters");
        check(
                errors,
                nodeId == null || nodeId.matches("[A-Za-z0-9._-]{1,64}"),
                "nodeId must be 1..64 characters of [A-Za-z0-9._-]");
        if (!isStandalone()) {
            check(
                    errors,
                    database.url.startsWith("jdbc:"),
                    "database.url must be a JDBC URL (jdbc:mysql:// or jdbc:mariadb://)");
        }
        if (!errors.isEmpty()) {
            throw new ConfigException(String.join("; ", errors));
        }
    }

    private static void check(List<String> errors, boolean ok, String message) {
        if (!ok) {
            errors.add(message);
        }
    }
}
