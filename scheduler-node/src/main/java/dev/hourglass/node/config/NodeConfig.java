package dev.hourglass.node.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.hourglass.node.api.http.TlsKeyStore;
import dev.hourglass.node.dispatch.kafka.KafkaSettings;
import dev.hourglass.node.firing.EngineSettings;
import dev.hourglass.node.manage.GroupCommit;
import dev.hourglass.node.retention.RetentionSettings;
import dev.hourglass.node.tenant.FailedAuthLimiter;
import dev.hourglass.node.tenant.Tenants;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The node's whole configuration, one typed object: read from YAML ({@code --config FILE}), then
 * overridden by {@code HOURGLASS_*} environment variables, then {@link #validate()}d. Every field
 * has the default documented in the README's configuration reference.
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public class NodeConfig {
    /** The shortest admin token accepted, configured or kept in the data dir. */
    public static final int MIN_ADMIN_TOKEN_LENGTH = 16;

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
    public Submits submits = new Submits();
    public Results results = new Results();
    public Cluster cluster = new Cluster();
    public Dubbo dubbo = new Dubbo();
    public Auth auth = new Auth();
    public Kafka kafka = new Kafka();
    public Retention retention = new Retention();
    public Alerts alerts = new Alerts();
    public Metrics metrics = new Metrics();
    /** Hosts and CIDRs allowed as HTTP callback targets. */
    public List<String> callbackAllow = new ArrayList<>(List.of("127.0.0.1", "localhost"));
    /**
     * How long an HTTP callback connection is kept open idle for the next callback to the same
     * receiver. Below the keep-alive timeout of common receivers (5 s for Node.js and Apache httpd)
     * so that this node closes an idle connection before the receiver does: a request sent on a
     * connection the receiver is closing at that moment fails after it may have been read, and its
     * job is sent again as its next attempt (docs/api.md, "HTTP callback").
     */
    public long callbackKeepAliveMs = 4_000;

    public static class Http {
        public String host = "0.0.0.0";
        public int port = 8080;
        /** Largest accepted request body (batch submits), bytes. */
        public long maxRequestBytes = 8L * 1024 * 1024;
        /** HTTPS on {@code port} instead of HTTP when {@code tls.keyStore} is set (docs/security.md). */
        public Tls tls = new Tls();
    }

    /** The HTTPS key store; none set: plain HTTP. */
    public static class Tls {
        /** PKCS12 or JKS file with the node's private key and certificate chain. */
        public String keyStore;
        /** The key store's password; may name a secret ({@code ${env:NAME}}, {@code ${file:/path}}). */
        public String keyStorePassword;
        /** {@code PKCS12} or {@code JKS}. */
        public String keyStoreType = "PKCS12";
        /** The private key's password when it differs from the key store's; may name a secret. */
        public String keyPassword;

        /** The key store to serve HTTPS with, or null for plain HTTP. */
        public TlsKeyStore keyStore() {
            if (keyStore == null || keyStore.isBlank()) {
                return null;
            }
            return new TlsKeyStore(
                    java.nio.file.Path.of(keyStore),
                    keyStoreType == null ? "PKCS12" : keyStoreType,
                    keyStorePassword,
                    keyPassword);
        }
    }

    /**
     * Group commit of single submits (HTTP and Dubbo): concurrent submits are stored together, one
     * transaction per group (docs/design.md).
     */
    public static class Submits {
        /**
         * Threads writing groups: each holds a connection of {@code database.poolSize} while it
         * writes, so keep it below the pool size (other API requests wait otherwise).
         */
        public int writers = 2;
        /** Most jobs in one group's transaction. */
        public int maxGroup = 256;
        /**
         * How long a writer waits for more submits after a group's first, when that one came
         * within this time of the one before it (a steady stream; a lone submit is written at
         * once); 0: never.
         */
        public long lingerMs = 5;

        /** The submit group commit's settings. */
        public GroupCommit.Settings settings() {
            return new GroupCommit.Settings(writers, maxGroup, lingerMs);
        }
    }

    /**
     * Group commit of consumers' results (HTTP and Dubbo; pull consumers' acknowledgements and
     * CONSUMER services' reported results): concurrent results are written together, one
     * transaction per group (docs/design.md).
     */
    public static class Results {
        /**
         * Threads writing groups: each holds a connection of {@code database.poolSize} while it
         * writes, so keep it below the pool size (other API requests wait otherwise).
         */
        public int writers = 2;
        /** Most results in one group's transaction. */
        public int maxGroup = 250;
        /**
         * A request with this many results or more is written alone on its own thread, as before
         * group commit: its results already share one commit, and grouping such batches cost the
         * concurrency of the requests' own transactions (docs/performance.md).
         */
        public int aloneFrom = 10;
        /** As {@code submits.lingerMs}, for results written in groups (below {@code aloneFrom}). */
        public long lingerMs = 5;

        /** The result group commit's settings. */
        public GroupCommit.Settings settings() {
            return new GroupCommit.Settings(writers, maxGroup, lingerMs);
        }
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
        /** Claim jobs up to this long before their fire time (sent exactly at it), in rounds; 0: claim at the fire time. */
        public long claimLeadMs = 100;
        /** The result writer gathers results for this long before a write; 0: writes each at once. */
        public long resultLingerMs = 10;
        /** How long a graceful stop waits for deliveries under way. */
        public long shutdownGraceMs = 10_000;

        /** The firing engine's settings. */
        public EngineSettings settings() {
            return new EngineSettings(
                    loadWindowMs,
                    loadIntervalMs,
                    catchUpIntervalMs,
                    timeoutSweepIntervalMs,
                    indexCapacity,
                    claimBatch,
                    claimThreads,
                    resultBatch,
                    claimLeadMs,
                    resultLingerMs);
        }
    }

    /**
     * Upper bound of {@code limits.maxFireAheadMs}: 100 years. It also bounds {@code delayMs} and
     * {@code expireAfterMs}, so a job's times stay in years an ISO-8601 output prints with 4 digits.
     */
    static final long MAX_FIRE_AHEAD_MS = 100L * 366 * 24 * 3600 * 1000;

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

        /** The retention sweep's settings. */
        public RetentionSettings settings() {
            return new RetentionSettings(
                    executionLogDays * RetentionSettings.DAY_MS,
                    backlogDays * RetentionSettings.DAY_MS,
                    intervalMs,
                    batchSize,
                    batchPauseMs,
                    maxBatchesPerRun);
        }
    }

    /** Alert evaluation and webhook notification (docs/alerts.md); the master does both. */
    public static class Alerts {
        /** How often the master evaluates every service's alert policy and sends owed webhooks. */
        public long evaluateEveryMs = 10_000;
        /** A webhook request that takes longer fails and is retried. */
        public long webhookTimeoutMs = 10_000;
    }

    /** What /metrics exports (docs/operations.md, "Metrics"). */
    public static class Metrics {
        /**
         * Services (app and service) with series of their own in the per-service metrics on this
         * node; the others share app="_other", service="_other". Each costs 27 series.
         */
        public int maxServiceLabels = 100;
        /**
         * How often each node reads the waiting and ready jobs behind the backlog gauges
         * (oldest overdue, PULL ready): one indexed read per service each time, so not per scrape.
         */
        public long backlogEveryMs = 10_000;
    }

    public static class Limits {
        public int maxPayloadBytes = 64 * 1024;
        /** How far ahead a fire time may be; also the maximum of delayMs and expireAfterMs. */
        public long maxFireAheadMs = 10L * 366 * 24 * 3600 * 1000;

        public int maxBatch = 1_000;
        public int maxAttributes = 16;

        /** The API's input limits. */
        public dev.hourglass.node.manage.Limits settings() {
            return new dev.hourglass.node.manage.Limits(maxPayloadBytes, maxFireAheadMs, maxBatch, maxAttributes);
        }
    }

    public static class Cluster {
        /** Fixed number of shards of the job space. Never change it on a cluster with jobs. */
        public int shards = 64;
        /** ZooKeeper ensemble; empty means an embedded ZooKeeper in the data dir (one-node cluster). */
        public String zkConnect;
        /** Root of this cluster's znodes: several clusters can share one ensemble. */
        public String zkRoot = "/hourglass";

        public int zkSessionTimeoutMs = 10_000;
        /**
         * The node's ZooKeeper credential, {@code user:password} (digest scheme); may name a secret
         * ({@code ${env:NAME}}, {@code ${file:/path}}). Set: the cluster's znodes are readable and
         * writable by this credential only (docs/security.md). Every node of the cluster uses the same.
         */
        public String zkAuth;
        /**
         * How long this node may go without an answer from the database before it hands its shards
         * to the other members until the database answers again (docs/cluster.md, "Network
         * partitions"); 0: never.
         */
        public long databaseLossStepBackMs = 10_000;

        public String kafkaBootstrap;
    }

    /** Delivery of KAFKA services (the brokers are {@code cluster.kafkaBootstrap}). */
    public static class Kafka {
        /**
         * Most attempts waiting to be handed to the producer (topic metadata not known yet, or the
         * sender behind); one more ends at once as an ERROR that never reached the broker.
         */
        public int sendQueueRecords = 10_000;
        /** The same bound in bytes of keys, values and headers. */
        public long sendQueueBytes = 32L * 1024 * 1024;
        /**
         * The producer's {@code delivery.timeout.ms}: a record handed to the producer is published,
         * or given up, within this long; so it bounds how late an attempt already reported TIMEOUT
         * can still be published.
         */
        public int deliveryTimeoutMs = 10_000;
        /**
         * Producer settings passed through to the KafkaProducer ({@code security.protocol},
         * {@code sasl.*}, {@code ssl.*}, tuning), flat keys as Kafka names them; values may name a
         * secret ({@code ${env:NAME}}, {@code ${file:/path}}). The few the node's guarantees rest on
         * are refused ({@link KafkaSettings}).
         */
        public Map<String, String> producer = new LinkedHashMap<>();

        /** The dispatcher's settings. */
        public KafkaSettings settings() {
            Map<String, String> given = new LinkedHashMap<>();
            if (producer != null) {
                producer.forEach((name, value) -> {
                    if (value != null) {
                        given.put(name, value);
                    }
                });
            }
            return new KafkaSettings(sendQueueRecords, sendQueueBytes, deliveryTimeoutMs, given);
        }
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

    /** Token caching and the failed-authentication limit (docs/security.md). */
    public static class Auth {
        /** How long a valid token is trusted without a database read: a revocation through another node takes this long. */
        public long tokenCacheMs = 10_000;
        /** How long an unknown token is remembered as unknown (no database read for it meanwhile). */
        public long unknownTokenCacheMs = 5_000;
        /** Most tokens each of the three token caches (valid, unknown, seen valid) holds. */
        public int tokenCacheSize = 10_000;
        /**
         * Distinct wrong tokens from one client address within failureWindowMs after which tokens the node
         * has not seen valid (and the admin token) get 429 from there; 0: no limit (docs/security.md).
         */
        public int maxFailures = 20;

        public long failureWindowMs = 60_000;
        /** How long a blocked address is refused (429 RATE_LIMITED). */
        public long blockMs = 60_000;
        /** Most client addresses the limit remembers at once. */
        public int trackedAddresses = 100_000;

        /** How long token lookups are remembered. */
        public Tenants.TokenCaching tokenCaching() {
            return new Tenants.TokenCaching(tokenCacheMs, unknownTokenCacheMs, tokenCacheSize);
        }

        /** When an address that keeps failing authentication is blocked. */
        public FailedAuthLimiter.Limits failedAuthLimits() {
            return new FailedAuthLimiter.Limits(maxFailures, failureWindowMs, blockMs, trackedAddresses);
        }
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
        if (http.tls != null && http.tls.keyStore() != null) {
            errors.addAll(http.tls.keyStore().problems());
        } else if (http.tls != null && http.tls.keyStorePassword != null) {
            errors.add("http.tls.keyStorePassword is set but http.tls.keyStore is not");
        }
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
        check(
                errors,
                engine.resultLingerMs >= 0 && engine.resultLingerMs <= 1_000,
                "engine.resultLingerMs must be in 0..1000");
        check(errors, engine.shutdownGraceMs >= 0, "engine.shutdownGraceMs must not be negative");
        // not bound by database.poolSize: with as many writers as connections, other API requests
        // wait for a connection while groups are written (the smallest pool, 2, still works)
        check(errors, submits.writers >= 1 && submits.writers <= 64, "submits.writers must be in 1..64");
        check(errors, submits.maxGroup >= 1 && submits.maxGroup <= 5_000, "submits.maxGroup must be in 1..5000");
        check(errors, submits.lingerMs >= 0 && submits.lingerMs <= 1_000, "submits.lingerMs must be in 0..1000");
        check(errors, results.writers >= 1 && results.writers <= 64, "results.writers must be in 1..64");
        check(errors, results.lingerMs >= 0 && results.lingerMs <= 1_000, "results.lingerMs must be in 0..1000");
        check(errors, results.maxGroup >= 1 && results.maxGroup <= 5_000, "results.maxGroup must be in 1..5000");
        check(
                errors,
                results.aloneFrom >= 1 && results.aloneFrom <= results.maxGroup,
                "results.aloneFrom must be in 1..results.maxGroup (a larger batch is written alone)");
        check(
                errors,
                // it is also the idle limit while a connection is made (a TLS handshake included)
                callbackKeepAliveMs >= 1_000 && callbackKeepAliveMs <= 3_600_000,
                "callbackKeepAliveMs must be in 1000..3600000");
        check(errors, limits.maxPayloadBytes >= 16, "limits.maxPayloadBytes must be at least 16");
        check(
                errors,
                limits.maxFireAheadMs >= 1_000 && limits.maxFireAheadMs <= MAX_FIRE_AHEAD_MS,
                "limits.maxFireAheadMs must be in 1000.." + MAX_FIRE_AHEAD_MS + " (100 years)");
        check(errors, limits.maxBatch >= 1 && limits.maxBatch <= 10_000, "limits.maxBatch must be in 1..10000");
        check(
                errors,
                limits.maxAttributes >= 0 && limits.maxAttributes <= 256,
                "limits.maxAttributes must be in 0..256");
        check(
                errors,
                alerts.evaluateEveryMs >= 100 && alerts.evaluateEveryMs <= 3_600_000,
                "alerts.evaluateEveryMs must be in 100..3600000");
        check(
                errors,
                alerts.webhookTimeoutMs >= 100 && alerts.webhookTimeoutMs <= 60_000,
                "alerts.webhookTimeoutMs must be in 100..60000");
        check(
                errors,
                metrics.maxServiceLabels >= 0 && metrics.maxServiceLabels <= 10_000,
                "metrics.maxServiceLabels must be in 0..10000");
        check(
                errors,
                metrics.backlogEveryMs >= 100 && metrics.backlogEveryMs <= 3_600_000,
                "metrics.backlogEveryMs must be in 100..3600000");
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
                cluster.zkAuth == null || cluster.zkAuth.matches("[^:\\s]+:\\S.*"),
                "cluster.zkAuth must be user:password (ZooKeeper's digest scheme)");
        check(
                errors,
                cluster.zkSessionTimeoutMs >= 2_000 && cluster.zkSessionTimeoutMs <= 120_000,
                "cluster.zkSessionTimeoutMs must be in 2000..120000");
        check(
                errors,
                cluster.databaseLossStepBackMs == 0
                        || (cluster.databaseLossStepBackMs >= 3_000 && cluster.databaseLossStepBackMs <= 3_600_000),
                "cluster.databaseLossStepBackMs must be 0 (never) or in 3000..3600000");
        check(
                errors,
                kafka.sendQueueRecords >= 1 && kafka.sendQueueRecords <= 1_000_000,
                "kafka.sendQueueRecords must be in 1..1000000");
        check(
                errors,
                kafka.sendQueueBytes >= Math.max(1L << 20, 4L * limits.maxPayloadBytes),
                "kafka.sendQueueBytes must be at least 1048576 and at least 4 x limits.maxPayloadBytes");
        check(
                errors,
                kafka.deliveryTimeoutMs >= 1_000 && kafka.deliveryTimeoutMs <= 600_000,
                "kafka.deliveryTimeoutMs must be in 1000..600000");
        if (kafka.producer != null && !kafka.producer.isEmpty()) {
            kafka.producer.forEach(
                    (name, value) -> check(errors, value != null, "kafka.producer." + name + " has no value"));
            errors.addAll(kafka.settings().problems());
        }
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
        check(errors, auth.tokenCacheMs >= 0 && auth.tokenCacheMs <= 300_000, "auth.tokenCacheMs must be in 0..300000");
        check(
                errors,
                auth.unknownTokenCacheMs >= 0 && auth.unknownTokenCacheMs <= 300_000,
                "auth.unknownTokenCacheMs must be in 0..300000");
        check(
                errors,
                auth.tokenCacheSize >= 100 && auth.tokenCacheSize <= 10_000_000,
                "auth.tokenCacheSize must be in 100..10000000");
        check(errors, auth.maxFailures >= 0 && auth.maxFailures <= 1_000_000, "auth.maxFailures must be in 0..1000000");
        check(
                errors,
                auth.failureWindowMs >= 1_000 && auth.failureWindowMs <= 86_400_000,
                "auth.failureWindowMs must be in 1000..86400000");
        check(errors, auth.blockMs >= 1_000 && auth.blockMs <= 86_400_000, "auth.blockMs must be in 1000..86400000");
        check(
                errors,
                auth.trackedAddresses >= 100 && auth.trackedAddresses <= 10_000_000,
                "auth.trackedAddresses must be in 100..10000000");
        check(
                errors,
                adminToken == null || adminToken.length() >= MIN_ADMIN_TOKEN_LENGTH,
                "adminToken must be at least " + MIN_ADMIN_TOKEN_LENGTH + " characters");
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
