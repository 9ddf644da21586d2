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
    public Retention retention = new Retention();
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
        /** Connections of the API (HTTP and Dubbo requests), service writes and retention. */
        public int poolSize = 16;
        /**
         * Connections of the firing engine alone (claims, result writes, loader and sweeps), so that
         * API traffic can never starve it; 0: {@code engine.claimThreads + 4}.
         */
        public int enginePoolSize = 0;
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

    /**
     * Deletion of old execution-log rows and final jobs, by the master only, in small batches (see
     * docs/operations.md). A retention of 0 days keeps that table's rows for ever.
     */
    public static class Retention {
        /** Days an attempt is kept after it finished (an attempt under way is never deleted). */
        public int executionLogDays = 7;
        /** Days a final job is kept after it ended; it goes with its attempts and its bizKey. */
        public int backlogDays = 30;
        /** Time between the end of one run and the start of the next. */
        public long intervalMs = 60_000;
        /** Most rows (backlog: jobs) one statement, and one transaction, deletes. */
        public int batchSize = 1_000;
        /** Pause between two batches, so that other transactions get the rows' pages and locks. */
        public long batchPauseMs = 100;
        /** Most batches per table in one run: a run's work is bounded even far behind. */
        public int maxBatchesPerRun = 250;
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
    }

    /** {@code database.enginePoolSize}, or its default when 0. */
    public int enginePoolSize() {
        return database.enginePoolSize > 0 ? database.enginePoolSize : engine.claimThreads + 4;
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
        check(
                errors,
                database.enginePoolSize == 0
                        || (database.enginePoolSize >= engine.claimThreads + 2 && database.enginePoolSize <= 500),
                "database.enginePoolSize must be 0 (engine.claimThreads + 4) or in engine.claimThreads + 2..500");
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
        check(errors, retention.executionLogDays >= 0, "retention.executionLogDays must not be negative (0: keep)");
        check(errors, retention.backlogDays >= 0, "retention.backlogDays must not be negative (0: keep)");
        check(errors, retention.intervalMs >= 1_000, "retention.intervalMs must be at least 1000");
        check(
                errors,
                retention.batchSize >= 1 && retention.batchSize <= 10_000,
                "retention.batchSize must be in 1..10000");
        check(
                errors,
                retention.batchPauseMs >= 0 && retention.batchPauseMs <= 60_000,
                "retention.batchPauseMs must be in 0..60000");
        check(
                errors,
                retention.maxBatchesPerRun >= 1 && retention.maxBatchesPerRun <= 100_000,
                "retention.maxBatchesPerRun must be in 1..100000");
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
