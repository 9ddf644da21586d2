package dev.hourglass.node.boot;

import dev.hourglass.api.DelayJobService;
import dev.hourglass.node.alert.AlertMonitor;
import dev.hourglass.node.api.FrontDoorRules;
import dev.hourglass.node.api.dubbo.DubboJobService;
import dev.hourglass.node.api.http.AlertRoutes;
import dev.hourglass.node.api.http.AppRoutes;
import dev.hourglass.node.api.http.BulkRoutes;
import dev.hourglass.node.api.http.Callers;
import dev.hourglass.node.api.http.HttpApi;
import dev.hourglass.node.api.http.JobRoutes;
import dev.hourglass.node.api.http.NodeStatus;
import dev.hourglass.node.api.http.OpsRoutes;
import dev.hourglass.node.api.http.PullRoutes;
import dev.hourglass.node.api.http.ScheduleRoutes;
import dev.hourglass.node.api.http.ServiceRoutes;
import dev.hourglass.node.background.DaemonThreads;
import dev.hourglass.node.background.Periodic;
import dev.hourglass.node.background.ThreadedScheduler;
import dev.hourglass.node.bulk.BulkActions;
import dev.hourglass.node.catalog.CallbackAllowList;
import dev.hourglass.node.catalog.ServiceCatalog;
import dev.hourglass.node.catalog.ServiceCommands;
import dev.hourglass.node.cluster.CuratorCoordinator;
import dev.hourglass.node.cluster.DatabaseLossWatch;
import dev.hourglass.node.cluster.EmbeddedZooKeeper;
import dev.hourglass.node.cluster.ZooKeeperAuth;
import dev.hourglass.node.config.ConfigException;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.core.cluster.Assignment;
import dev.hourglass.node.core.cluster.Member;
import dev.hourglass.node.core.job.JobIdGenerator;
import dev.hourglass.node.core.port.Coordination;
import dev.hourglass.node.core.port.FiringListener;
import dev.hourglass.node.core.port.JobReads;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.shard.LimitShareCache;
import dev.hourglass.node.core.shard.ShardOwnership;
import dev.hourglass.node.core.shard.ShardPlacement;
import dev.hourglass.node.cron.SpringCronSyntax;
import dev.hourglass.node.dispatch.DispatchRouter;
import dev.hourglass.node.dispatch.dubbo.DubboCallbackDispatcher;
import dev.hourglass.node.dispatch.http.HttpCallbackDispatcher;
import dev.hourglass.node.dispatch.http.HttpWebhookSender;
import dev.hourglass.node.dispatch.kafka.KafkaDispatcher;
import dev.hourglass.node.dubbo.DubboRuntime;
import dev.hourglass.node.firing.ClusterContext;
import dev.hourglass.node.firing.EngineSchedulers;
import dev.hourglass.node.firing.FiringEngine;
import dev.hourglass.node.manage.DeadLetterOffice;
import dev.hourglass.node.manage.JobManager;
import dev.hourglass.node.metrics.AlertMetrics;
import dev.hourglass.node.metrics.FiringHistory;
import dev.hourglass.node.metrics.FiringMetrics;
import dev.hourglass.node.metrics.OverdueMetrics;
import dev.hourglass.node.metrics.PullMetrics;
import dev.hourglass.node.metrics.RetentionMetrics;
import dev.hourglass.node.metrics.ServiceLabels;
import dev.hourglass.node.pull.PullConsumers;
import dev.hourglass.node.pull.ResumeWatch;
import dev.hourglass.node.retention.RetentionSweep;
import dev.hourglass.node.schedule.MaterializeSchedulesTask;
import dev.hourglass.node.schedule.ScheduleCommands;
import dev.hourglass.node.store.h2.StandaloneH2;
import dev.hourglass.node.store.mybatis.ConnectionAdvice;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.store.mybatis.LiveCountFolder;
import dev.hourglass.node.store.mybatis.MyBatisAlertStore;
import dev.hourglass.node.store.mybatis.MyBatisAppRepository;
import dev.hourglass.node.store.mybatis.MyBatisAttemptStore;
import dev.hourglass.node.store.mybatis.MyBatisAuditLog;
import dev.hourglass.node.store.mybatis.MyBatisJobMutations;
import dev.hourglass.node.store.mybatis.MyBatisJobRepository;
import dev.hourglass.node.store.mybatis.MyBatisReservationStore;
import dev.hourglass.node.store.mybatis.MyBatisRetentionStore;
import dev.hourglass.node.store.mybatis.MyBatisScheduleStore;
import dev.hourglass.node.store.mybatis.MyBatisServiceRepository;
import dev.hourglass.node.store.mybatis.SqlFailures;
import dev.hourglass.node.tenant.DeliveryTargets;
import dev.hourglass.node.tenant.FailedAuthLimiter;
import dev.hourglass.node.tenant.Tenants;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: the one place that builds adapters and wires them into the core. A node
 * is started with {@link #start}; {@link #close} stops it gracefully, {@link #halt} stops it the
 * way a crash would (tests).
 */
public final class HourglassNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HourglassNode.class);
    static final String VERSION = BuildInfo.version();
    /** What a stop may take beyond {@code engine.shutdownGraceMs} (docs/cluster.md, "Stopping a node"). */
    public static final long STOP_BEYOND_GRACE_MS = 5_000;
    /** How often committed live-count deltas are folded: the stats read scans about this much. */
    private static final long LIVE_COUNT_FOLD_MS = 1_000;
    /** How often the schedules whose next check has come are looked at: they are submitted 30 s ahead. */
    private static final long SCHEDULES_EVERY_MS = 500;

    private final NodeConfig config;
    private final String nodeId;
    private final String adminToken;
    private final boolean adminTokenGenerated;
    private final Database database;
    private final FiringEngine engine;
    private final DispatchRouter dispatch;
    private final HttpApi http;
    private final EmbeddedZooKeeper embeddedZooKeeper;
    private final DubboRuntime dubbo;
    private final CuratorCoordinator coordinator;
    private volatile DatabaseLossWatch databaseWatch;
    private final ShardOwnership shards;
    private final RetentionSweep retention;
    private final LiveCountFolder liveCounts;
    private final FiringHistory history;
    private volatile Periodic historyRoll;
    /** Submits the jobs of the schedules of this node's shards (docs/api.md, "Schedules"). */
    private MaterializeSchedulesTask schedules;

    private volatile Periodic schedulesRun;
    private volatile Periodic pullBacklogGauges;
    private final PullMetrics pullMetrics;
    private final OverdueMetrics overdueMetrics;
    private final JobReads jobReads;
    private final ServiceCatalog catalog;
    private final AlertMonitor alerts;
    private final JobManager jobManager;
    private final PullConsumers pull;
    private final ThreadedScheduler pullTimers;
    private final ThreadedScheduler pullReservers;
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    private final Clock clock;
    /** What the Dubbo protocol exports once the node starts. */
    private final Map<Class<?>, Object> dubboServices;
    /** When this node started firing: its members' entry says so (orphaned attempts are told by it). */
    private volatile long startedAt;

    private volatile boolean httpStarted;
    private volatile boolean ready;
    private final LimitShareCache limitShares;

    /**
     * Builds the node: opens the database (migrating it) and the embedded ZooKeeper when there is
     * one, since the rest is built on them, and wires every part; starts none of them ({@link
     * #startParts}).
     */
    private HourglassNode(NodeConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        this.nodeId = config.nodeId != null
                ? config.nodeId
                : "node-"
                        + HexFormat.of()
                                .toHexDigits(ThreadLocalRandom.current().nextInt())
                                .substring(2);
        NodeNameInLogs.name(nodeId);
        var token = config.adminToken != null
                ? new AdminTokenFile.Loaded(config.adminToken, false)
                : adminTokenInDataDir(Path.of(config.dataDir));
        this.adminToken = token.token();
        this.adminTokenGenerated = token.generated();
        this.limitShares = new LimitShareCache(nodeId);
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.database = openDatabase(config, registry);
        try {
            var sessions = database.sessions(); // the API's pool; the engine has its own
            var sqlFailures = new SqlFailures();
            var jobRepository = new MyBatisJobRepository(sessions, sqlFailures);
            var alertStore = new MyBatisAlertStore(sessions);
            var auditLog = new MyBatisAuditLog(sessions);
            var serviceRepository = new MyBatisServiceRepository(sessions);
            var appRepository = new MyBatisAppRepository(sessions);
            var targets = new DeliveryTargets(appRepository);
            var catalog =
                    new ServiceCatalog(serviceRepository, new MyBatisServiceRepository(database.engineSessions()));
            catalog.onChange(services -> targets.refresh()); // grants reload with the services
            this.catalog = catalog;
            var allowList = new CallbackAllowList(config.callbackAllow);
            this.embeddedZooKeeper = config.cluster.zkConnect == null || config.cluster.zkConnect.isBlank()
                    ? new EmbeddedZooKeeper(Path.of(config.dataDir))
                    : null;
            String zk = embeddedZooKeeper != null ? embeddedZooKeeper.connectString() : config.cluster.zkConnect;
            this.dispatch = new DispatchRouter()
                    .checkTargets(targets::refusal)
                    .register(Protocol.HTTP, new HttpCallbackDispatcher(allowList, config.callbackKeepAliveMs, clock));
            Set<Protocol> protocols = EnumSet.of(Protocol.HTTP, Protocol.PULL);
            KafkaDispatcher kafka = null;
            if (config.cluster.kafkaBootstrap != null && !config.cluster.kafkaBootstrap.isBlank()) {
                kafka = new KafkaDispatcher(config.cluster.kafkaBootstrap, nodeId, config.kafka.settings());
                dispatch.register(Protocol.KAFKA, kafka);
                protocols.add(Protocol.KAFKA);
            }
            this.dubbo = config.dubbo.enabled
                    ? DubboRuntime.configure(
                            nodeId,
                            dubboHost(config),
                            config.dubbo.port,
                            dubboRegistry(config, zk),
                            config.dubbo.reconnectMs)
                    : null;
            if (dubbo != null) {
                var callbacks = new DubboCallbackDispatcher(dubbo);
                dispatch.register(Protocol.DUBBO, callbacks);
                catalog.onChange(callbacks::retainOnly);
                protocols.add(Protocol.DUBBO);
                Gauge.builder("hourglass.dubbo.references", callbacks, DubboCallbackDispatcher::openReferences)
                        .description("open Dubbo references to business JobCallbackServices")
                        .register(registry);
            }
            if (kafka != null) {
                Gauge.builder("hourglass.kafka.send.queue.records", kafka, KafkaDispatcher::waitingRecords)
                        .description(
                                "KAFKA attempts waiting to be handed to the producer (bound: kafka.sendQueueRecords)")
                        .register(registry);
                Gauge.builder("hourglass.kafka.send.queue.bytes", kafka, KafkaDispatcher::waitingBytes)
                        .description("bytes of those attempts (bound: kafka.sendQueueBytes)")
                        .register(registry);
            }
            this.shards = new ShardOwnership(List.of()); // the master's assignment fills it
            new JvmMemoryMetrics().bindTo(registry);
            gcMetrics.bindTo(registry);
            new JvmThreadMetrics().bindTo(registry);
            new ProcessorMetrics().bindTo(registry);
            var serviceLabels = new ServiceLabels(config.metrics.maxServiceLabels);
            var metrics = new FiringMetrics(registry, serviceLabels);
            this.overdueMetrics = new OverdueMetrics(registry, serviceLabels, clock::millis);
            this.jobReads = jobRepository;
            this.pullMetrics = new PullMetrics(registry, serviceLabels, catalog::pulledServiceKeys);
            this.history = new FiringHistory();
            var e = config.engine;
            var engineAttempts = new MyBatisAttemptStore(database.engineSessions(), nodeId, sqlFailures);
            var reportedAttempts = new MyBatisAttemptStore(sessions, nodeId, sqlFailures);
            this.engine = new FiringEngine(
                    new FiringEngine.Ports(
                            engineAttempts,
                            catalog,
                            dispatch,
                            FiringListener.both(FiringListener.both(metrics, history), pullMetrics)),
                    this.shards,
                    new ClusterContext(nodeId, this::liveNodes, this::limitShare),
                    clock,
                    e.settings(),
                    EngineSchedulers.threaded(clock, e.claimThreads));
            engine.writeReportedResultsThrough(reportedAttempts);
            Gauge.builder("hourglass.results.pending", engine, FiringEngine::pendingResults)
                    .description("attempt results queued to be written (grows while the database refuses writes)")
                    .register(registry);
            FunctionCounter.builder("hourglass.db.deadlocks", sqlFailures, SqlFailures::deadlocks)
                    .description("database deadlocks (each one rolled back and retried at once)")
                    .register(registry);
            var jobIds = new JobIdGenerator(clock, Math.floorMod(nodeId.hashCode(), 1024)); // until leased
            var holders = new ClusterAttemptHolders(nodeId, engine);
            var jobs = new JobManager(
                    jobRepository,
                    jobRepository,
                    new MyBatisJobMutations(sessions, nodeId),
                    catalog,
                    engine,
                    new ShardPlacement(config.cluster.shards),
                    this.shards,
                    jobIds,
                    config.limits.settings(),
                    config.submits.settings(),
                    config.results.settings(),
                    config.results.aloneFrom,
                    holders,
                    clock);
            this.jobManager = jobs;
            var deadLetters = new DeadLetterOffice(catalog, jobs);
            engineAttempts.sendDeadLettersTo(deadLetters);
            reportedAttempts.sendDeadLettersTo(deadLetters);
            var scheduleStore = new MyBatisScheduleStore(sessions, sqlFailures);
            var cronSyntax = new SpringCronSyntax();
            this.schedules = new MaterializeSchedulesTask(
                    scheduleStore, jobs, cronSyntax, this.shards, MaterializeSchedulesTask.Settings.DEFAULTS, clock);
            var scheduleCommands = new ScheduleCommands(
                    scheduleStore,
                    jobs,
                    cronSyntax,
                    new ShardPlacement(config.cluster.shards),
                    schedules::passNow,
                    clock);
            this.pullTimers = new ThreadedScheduler("hourglass-pull-timer", 1, clock);
            this.pullReservers = new ThreadedScheduler("hourglass-pull-reserve", 2, clock);
            var reservations = new MyBatisReservationStore(sessions, nodeId, sqlFailures);
            reservations.sendDeadLettersTo(deadLetters);
            this.pull = new PullConsumers(
                    reservations,
                    jobRepository,
                    catalog,
                    nodeId,
                    pullTimers,
                    pullReservers,
                    PullConsumers.Settings.DEFAULTS);
            engine.signalPulledJobsTo(pull);
            catalog.onChange(new ResumeWatch(pull::resumed));
            pull.reportTo(pullMetrics);
            Gauge.builder("hourglass.pull.waiting", pull, PullConsumers::waiting)
                    .description("pull consumers waiting in a reserve on this node (long polls)")
                    .register(registry);
            var services = new ServiceCommands(
                    catalog,
                    allowList,
                    targets,
                    protocols,
                    dubbo != null && dubbo.hasRegistry(),
                    scheduleStore,
                    auditLog,
                    clock);
            var tenants = new Tenants(
                    appRepository,
                    adminToken,
                    clock,
                    config.auth.tokenCaching(),
                    new FailedAuthLimiter(config.auth.failedAuthLimits(), clock));
            this.coordinator = new CuratorCoordinator(
                    zk,
                    new ZooKeeperAuth(config.cluster.zkAuth),
                    config.cluster.zkRoot,
                    config.cluster.zkSessionTimeoutMs,
                    nodeId,
                    config.cluster.shards,
                    this.shards,
                    () -> new Member(
                            nodeId,
                            baseUrlOrNull(),
                            VERSION,
                            startedAt,
                            engine.inMemory(),
                            engine.inFlight(),
                            engine.watermark() == Long.MIN_VALUE ? null : engine.watermark()),
                    new CuratorCoordinator.Listeners(engine::nodeLeft, jobIds::useWorker));
            coordinator.answerWithholdRequestsWith(engine::withhold);
            holders.reachOthersThrough(coordinator);
            clusterGauges(registry, coordinator, shards);
            var rules = new FrontDoorRules(tenants::exists);
            var callers = new Callers(tenants, rules);
            this.http = new HttpApi(
                    new HttpApi.Listener(
                            config.http.host,
                            config.http.port,
                            config.http.maxRequestBytes,
                            config.http.tls.keyStore()),
                    List.of(
                            new JobRoutes(jobs, callers),
                            new ServiceRoutes(services, serviceRepository, callers),
                            new AppRoutes(tenants, targets, callers, appRepository, allowList),
                            new OpsRoutes(
                                    new Status(),
                                    jobRepository,
                                    metrics,
                                    history,
                                    registry,
                                    callers,
                                    pull,
                                    pullMetrics,
                                    clock),
                            new AlertRoutes(alertStore, callers, clock),
                            new BulkRoutes(new BulkActions(jobs, auditLog, clock), auditLog, callers),
                            new PullRoutes(pull, jobs, callers, clock),
                            new ScheduleRoutes(scheduleCommands, callers)));
            this.dubboServices =
                    Map.of(DelayJobService.class, new DubboJobService(jobs, pull, scheduleCommands, tenants, rules));
            this.retention = new RetentionSweep(
                    new MyBatisRetentionStore(sessions),
                    clock,
                    config.retention.settings(),
                    coordinator,
                    new RetentionMetrics(registry));
            this.liveCounts = new LiveCountFolder(sessions, LIVE_COUNT_FOLD_MS);
            this.alerts = new AlertMonitor(
                    alertStore,
                    serviceRepository,
                    coordinator,
                    clock,
                    new HttpWebhookSender(
                            allowList, clock, java.time.Duration.ofMillis(config.alerts.webhookTimeoutMs)),
                    new AlertMetrics(registry),
                    appRepository::alertWebhooks,
                    config.cluster.shards,
                    config.alerts.evaluateEveryMs,
                    config.alerts.webhookTimeoutMs);
        } catch (RuntimeException ex) {
            stopWhatStarted();
            throw ex;
        }
    }

    /**
     * Starts the parts in the order the cluster needs: the engine (ready to fire what it is given),
     * the coordinator's session (which leases the worker id of job ids before any submit is taken),
     * the submit writers and the front doors, then membership (the master assigns shards), and the
     * background chores. A failure stops what started, in reverse order.
     */
    private void startParts() {
        try {
            historyRoll = Periodic.every("hourglass-history", 1_000, () -> history.roll(clock.millis()));
            engine.start();
            startedAt = clock.millis();
            coordinator.connect();
            jobManager.start();
            pullTimers.start();
            pullReservers.start();
            pull.start();
            pullBacklogGauges = Periodic.every(
                    "hourglass-backlog-gauges", config.metrics.backlogEveryMs, this::refreshBacklogGauges);
            http.start();
            httpStarted = true;
            if (dubbo != null) {
                dubbo.start(dubboServices);
            }
            coordinator.join();
            databaseWatch = startDatabaseWatch(config, database, coordinator);
            retention.start();
            schedulesRun = Periodic.every("hourglass-schedules", SCHEDULES_EVERY_MS, schedules);
            liveCounts.start();
            alerts.start();
            ready = true;
        } catch (Exception ex) {
            stopWhatStarted();
            throw ex instanceof RuntimeException r ? r : new IllegalStateException(ex);
        }
    }

    public static HourglassNode start(NodeConfig config) {
        return start(config, Clock.systemUTC());
    }

    public static HourglassNode start(NodeConfig config, Clock clock) {
        config.validate();
        HourglassNode node = new HourglassNode(config, clock);
        node.startParts();
        return node;
    }

    /** A node of a cluster on a database of its own hands its shards on while it cannot reach it. */
    private static DatabaseLossWatch startDatabaseWatch(
            NodeConfig config, Database database, CuratorCoordinator coordinator) {
        if (config.isStandalone() || config.cluster.databaseLossStepBackMs == 0) {
            return null; // in-process H2 on one node: no link to lose, nobody to hand the shards to
        }
        return new DatabaseLossWatch(
                        database::answersPromptly,
                        new DatabaseLossWatch.Stance() {
                            @Override
                            public void stepBack(String why) {
                                coordinator.stepBack(why);
                            }

                            @Override
                            public void stepForward() {
                                coordinator.stepForward();
                            }
                        },
                        () -> System.nanoTime() / 1_000_000,
                        config.cluster.databaseLossStepBackMs,
                        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("hourglass-database-watch")),
                        Executors.newSingleThreadExecutor(DaemonThreads.named("hourglass-database-probe")))
                .start();
    }

    /**
     * What an operator asks of a node first (docs/operations.md, "Metrics"): which build it runs
     * ({@code hourglass_build_info}, 1, labelled with the version, to join on), whether it has its
     * ZooKeeper session, whether it is the master, and how many shards it fires. Read from memory
     * at each scrape.
     */
    private static void clusterGauges(
            PrometheusMeterRegistry registry, CuratorCoordinator coordinator, ShardOwnership shards) {
        Gauge.builder("hourglass.build.info", () -> 1)
                .tag("version", VERSION)
                .description("1, labelled with the node's version")
                .register(registry);
        Gauge.builder("hourglass.zookeeper.connected", coordinator, c -> c.isConnected() ? 1 : 0)
                .description("1 while the node holds its ZooKeeper session")
                .register(registry);
        Gauge.builder("hourglass.master", coordinator, c -> c.isMaster() ? 1 : 0)
                .description("1 on the node that assigns the shards")
                .register(registry);
        Gauge.builder("hourglass.shards.owned", shards, s -> s.current().size())
                .description("shards this node fires")
                .register(registry);
    }

    /** Standalone: H2 in the data directory, as {@link StandaloneH2} opens it; otherwise the configured database. */
    private static Database openDatabase(NodeConfig config, PrometheusMeterRegistry registry) {
        int api = config.database.poolSize;
        int engine = config.enginePoolSize();
        if (config.isStandalone()) {
            Path dir = Path.of(config.dataDir).toAbsolutePath();
            DataDirectory.createPrivate(dir);
            return StandaloneH2.open(dir, api, engine, registry);
        }
        try {
            return new Database(
                    config.database.url, config.database.user, config.database.password, api, engine, registry);
        } catch (RuntimeException e) {
            // the failures a first start commonly meets get what to change instead of a stack trace
            var advice = ConnectionAdvice.forFailure(e, config.database.url);
            if (advice.isPresent()) {
                throw new ConfigException("database.url: " + advice.get(), e);
            }
            throw e;
        }
    }

    /**
     * {@code dubbo.host}, or loopback when unset and the cluster's ZooKeeper is the embedded one
     * (a one-machine cluster: its registry is on loopback, so is what it registers).
     */
    private String dubboHost(NodeConfig config) {
        if (config.dubbo.host != null && !config.dubbo.host.isBlank()) {
            return config.dubbo.host;
        }
        return embeddedZooKeeper != null ? "127.0.0.1" : null;
    }

    /** {@code dubbo.registry}: the cluster's ZooKeeper, none, or a registry URL as given. */
    private static String dubboRegistry(NodeConfig config, String clusterZooKeeper) {
        return switch (config.dubbo.registry) {
            case "cluster" -> DubboRuntime.zookeeperRegistry(clusterZooKeeper);
            case "none" -> null;
            default -> config.dubbo.registry;
        };
    }

    /**
     * README.md, "Configuration": generated at first start, printed, kept in the data dir; see
     * {@link AdminTokenFile}.
     */
    private static AdminTokenFile.Loaded adminTokenInDataDir(Path dataDir) {
        return AdminTokenFile.load(dataDir);
    }

    private void closeSchedules() {
        if (schedulesRun != null) {
            schedulesRun.close();
        }
    }

    private void closeDatabaseWatch() {
        if (databaseWatch != null) {
            databaseWatch.close();
        }
    }

    /** A start that failed half-way: stop what it started, in reverse order. */
    private void stopWhatStarted() {
        for (AutoCloseable part : new AutoCloseable[] {
            databaseWatch,
            alerts,
            liveCounts,
            historyRoll,
            schedulesRun,
            retention,
            http,
            pull == null ? null : this::closePull,
            jobManager == null ? null : jobManager::close,
            coordinator,
            engine == null ? null : engine::halt,
            dispatch == null ? null : dispatch::close,
            dubbo,
            embeddedZooKeeper,
            database
        }) {
            try {
                if (part != null) {
                    part.close();
                }
            } catch (Exception e) {
                LOG.warn("stopping after a failed start: {}", e.toString());
            }
        }
    }

    private void closeEmbeddedZooKeeper() {
        if (embeddedZooKeeper != null) {
            embeddedZooKeeper.close();
        }
    }

    /** The cluster's live nodes as this node sees them (itself included once it has joined). */
    private Set<String> liveNodes() {
        Set<String> live = new java.util.HashSet<>();
        if (coordinator != null) {
            coordinator.members().forEach(m -> live.add(m.id()));
        }
        live.add(nodeId);
        return live;
    }

    /** This node's share of a cluster-wide limit, by the shards it owns in the current assignment. */
    private int limitShare(int limit) {
        Assignment assignment = coordinator != null ? coordinator.assignment() : Assignment.NONE;
        return limitShares.shareOf(limit, assignment, shards.current().size());
    }

    /** Before the HTTP server has a port (during start) there is no address yet. */
    private String baseUrlOrNull() {
        return httpStarted ? baseUrl() : null;
    }

    public String nodeId() {
        return nodeId;
    }

    public String adminToken() {
        return adminToken;
    }

    /** True when this start generated the admin token (none configured, none kept in the data dir). */
    public boolean adminTokenGenerated() {
        return adminTokenGenerated;
    }

    public int httpPort() {
        return http.port();
    }

    /** The Dubbo protocol port, or -1 when Dubbo is disabled. */
    public int dubboPort() {
        return dubbo == null ? -1 : dubbo.port();
    }

    public String baseUrl() {
        String host = "0.0.0.0".equals(config.http.host) ? "127.0.0.1" : config.http.host;
        String scheme = config.http.tls != null && config.http.tls.keyStore() != null ? "https" : "http";
        return scheme + "://" + host + ":" + httpPort();
    }

    public boolean isReady() {
        return ready;
    }

    /**
     * Graceful: stops accepting, gives up its shards (giving back what it claimed and has not
     * sent; the master hands them on at once), lets deliveries under way finish and writes their
     * results, then leaves the cluster. It stays a member until its results are written: the new
     * owners of its shards end a former member's RUNNING attempts at once and send them again.
     *
     * <p>Bounded: returns within {@code engine.shutdownGraceMs} + {@value #STOP_BEYOND_GRACE_MS} ms
     * (plus a moment per step that overran) whatever ZooKeeper, the database or a broker are doing.
     * Each step has its own bound; one that overruns (a client retrying against a server that is
     * gone) is abandoned with a warning and the next step runs ({@link StopSequence}).
     */
    @Override
    public void close() {
        ready = false;
        long grace = config.engine.shutdownGraceMs;
        StopSequence stop = new StopSequence(LOG, grace + STOP_BEYOND_GRACE_MS);
        stop.step("retention", 1_000, retention::close);
        stop.step("schedules", 1_000, this::closeSchedules);
        stop.step("live-count folding", 1_000, liveCounts::close);
        stop.step("firing history", 1_000, historyRoll::close);
        stop.step("alerts", 1_000, alerts::close);
        stop.step("waiting pull consumers", 1_000, this::closePull); // answered before the server goes
        stop.step("HTTP server", 1_000, http::close);
        stop.step("submits and results being stored", 1_000, jobManager::close); // Dubbo's later ones: alone
        // shards first: what this node claimed and has not sent is given back, and the master hands
        // the shards on at once. Membership last: while this node is a member, the new owners leave
        // its attempts under way to its results, which it writes before it leaves
        stop.step("database watch", 1_000, this::closeDatabaseWatch); // no step forward while stopping
        stop.step("giving up shards", 1_000, coordinator::stopTakingShards);
        // the grace for the deliveries, then most of the time beyond it for writing their results:
        // the node must not leave with results unwritten (they would be sent again)
        stop.step("deliveries under way", grace + 3_500, () -> engine.stop(grace));
        stop.step("leaving the cluster", 2_000, coordinator::close);
        stop.step("dispatchers", 1_000, dispatch::close);
        stop.step("Dubbo", 2_000, this::closeDubbo); // before the embedded ZooKeeper, its registry
        stop.step("embedded ZooKeeper", 1_000, this::closeEmbeddedZooKeeper);
        stop.step("database", 1_000, database::close);
        gcMetrics.close();
    }

    /**
     * Stops everything at once, writing nothing more: what kill -9 leaves behind, for tests. Bounded
     * like {@link #close()}, within {@value #STOP_BEYOND_GRACE_MS} ms.
     */
    public void halt() {
        ready = false;
        StopSequence stop = new StopSequence(LOG, STOP_BEYOND_GRACE_MS);
        stop.step("retention", 1_000, retention::close);
        stop.step("schedules", 1_000, this::closeSchedules);
        stop.step("live-count folding", 1_000, liveCounts::close);
        stop.step("firing history", 1_000, historyRoll::close);
        stop.step("alerts", 1_000, alerts::close);
        stop.step("database watch", 1_000, this::closeDatabaseWatch);
        stop.step("firing", 1_000, engine::halt);
        stop.step("leaving the cluster", 1_000, coordinator::close);
        stop.step("waiting pull consumers", 1_000, this::closePull);
        stop.step("HTTP server", 1_000, http::close);
        stop.step("submits and results being stored", 1_000, jobManager::close);
        stop.step("dispatchers", 1_000, dispatch::close);
        stop.step("Dubbo", 1_000, this::closeDubbo);
        stop.step("embedded ZooKeeper", 1_000, this::closeEmbeddedZooKeeper);
        stop.step("database", 1_000, database::close);
        gcMetrics.close();
    }

    /**
     * The PULL services' ready jobs and every service's oldest overdue job for the metrics: reads of
     * the whole cluster's, per period.
     */
    private void refreshBacklogGauges() {
        try {
            overdueMetrics.refresh(jobReads.oldestWaitingDueAt());
        } finally { // one read failing does not keep the other from being tried
            pullMetrics.refresh(pull.backlogs(null), clock.millis());
        }
    }

    private void closePull() {
        if (pullBacklogGauges != null) {
            pullBacklogGauges.close();
        }
        pull.close();
        pullReservers.close(500);
        pullTimers.close(0);
    }

    private void closeDubbo() {
        if (dubbo != null) {
            dubbo.close();
        }
    }

    private final class Status implements NodeStatus {

        @Override
        public String nodeId() {
            return nodeId;
        }

        @Override
        public String address() {
            return baseUrl();
        }

        /**
         * Started and not stopping, the database answering on the probe's own connection (an API
         * flood that takes every pooled connection must not make every node NotReady at once), and
         * the ZooKeeper session up (a node without it claims nothing).
         */
        @Override
        public boolean isReady() {
            return ready && coordinator.isConnected() && database.answersPromptly();
        }

        @Override
        public List<Integer> ownedShards() {
            return shards.current();
        }

        @Override
        public int shardCount() {
            return config.cluster.shards;
        }

        @Override
        public int inMemory() {
            return engine.inMemory();
        }

        @Override
        public int inFlight() {
            return engine.inFlight();
        }

        @Override
        public java.util.Map<String, Integer> inFlightByService() {
            return engine.inFlightByService();
        }

        @Override
        public long watermark() {
            return engine.watermark();
        }

        @Override
        public Coordination cluster() {
            return coordinator;
        }
    }
}
