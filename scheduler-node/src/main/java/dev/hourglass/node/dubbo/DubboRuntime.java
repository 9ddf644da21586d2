package dev.hourglass.node.dubbo;

import dev.hourglass.api.DelayJobService;
import dev.hourglass.node.core.service.PullLimits;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.dubbo.common.logger.LoggerFactory;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.MethodConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.apache.dubbo.rpc.model.ModuleModel;
import org.slf4j.Logger;

/**
 * The node's Dubbo: one isolated framework instance (several nodes can share a JVM in tests) with
 * one protocol server, one optional registry, the exported {@code DelayJobService} and the
 * references to business {@code JobCallbackService}s.
 *
 * <p>Quiet and local by design: no QoS port, no metadata service, interface-level registration
 * (what every Dubbo version understands), no registry file cache.
 */
public final class DubboRuntime implements AutoCloseable {
    private static final Logger LOG = org.slf4j.LoggerFactory.getLogger(DubboRuntime.class);
    /**
     * Dubbo reads the interfaces to ignore when it picks the address to register; ignoring all of
     * them makes it fall back to the loopback address (it refuses 127.0.0.1 as a configured host).
     */
    static final String IGNORED_INTERFACES = "dubbo.network.interface.ignored";

    static final String JSON_FRAMEWORK = "dubbo.json-framework.prefer";

    /**
     * Held while a node's Dubbo starts or is destroyed: one Dubbo of this JVM never starts while
     * another is being destroyed.
     *
     * <p>Why: Dubbo's Netty server reads the JVM's <em>default</em> framework model when it opens
     * its port ({@code ApplicationModel.defaultModel()}, for its allocator metrics), whatever model
     * it belongs to, and the default model is the first one created, so usually another node's.
     * While that one is being destroyed, it is still the default but refuses to be used, and the
     * port does not open ("FrameworkModel is destroyed"). A node's stop abandons a Dubbo close that
     * overruns its bound and lets it finish in the background, so in a JVM that runs several nodes
     * (tests, an embedding application) the next node could start during that window.
     */
    private static final ReentrantLock LIFECYCLE = new ReentrantLock();

    /** How long a start or a destroy waits for another one before going on anyway (with a warning). */
    static final long LIFECYCLE_WAIT_MS = 30_000;

    /**
     * How many ports a node configured with {@code dubbo.port: 0} tries before its start fails: the
     * port is chosen free, but only bound when the node starts, and another process may bind it in
     * between (seen in CI, where several JVMs start nodes side by side).
     */
    static final int PORT_TRIES = 5;

    private final String nodeId;
    private final String host;
    private final boolean portChosenHere;
    private final String registryUrl;
    private final Map<String, String> referenceParameters;
    /**
     * Replaced when a chosen port was taken at the start: before any service is served, and before
     * any reference is made (the node starts its Dubbo before it joins the cluster, so before it
     * owns a job to call back).
     */
    private volatile DubboBootstrap bootstrap;

    private volatile int port;

    private DubboRuntime(String nodeId, String host, int port, String registryUrl, int reconnectMs) {
        this.nodeId = nodeId;
        this.host = host;
        this.portChosenHere = port == 0;
        this.port = port == 0 ? freePort(host) : port;
        this.registryUrl = registryUrl;
        this.referenceParameters = referenceParameters(reconnectMs);
        this.bootstrap = newBootstrap(this.port);
    }

    /**
     * Configures (does not start) the node's Dubbo.
     *
     * @param host the address to register; a loopback address keeps this node's Dubbo traffic on
     *     loopback; null: the machine's address
     * @param port the protocol port; 0 picks a free one
     * @param registryUrl a Dubbo registry URL, or null for none (direct URLs only)
     * @param reconnectMs how often a broken connection to a provider is tried again (see {@link
     *     #referenceParameters})
     */
    public static DubboRuntime configure(String nodeId, String host, int port, String registryUrl, int reconnectMs) {
        if (host != null && isLoopback(host)) {
            System.setProperty(IGNORED_INTERFACES, ".*");
        }
        // Dubbo walks its JSON bindings with a ServiceLoader until it meets the preferred one; on JDK
        // 21+ the walk dies at the fastjson 1 binding (absent here) unless fastjson2 is preferred
        if (System.getProperty(JSON_FRAMEWORK) == null) {
            System.setProperty(JSON_FRAMEWORK, "fastjson2");
        }
        return new DubboRuntime(nodeId, host, port, registryUrl, reconnectMs);
    }

    /** A Dubbo of its own framework model serving on {@code port}; started by {@link #start}. */
    private DubboBootstrap newBootstrap(int port) {
        FrameworkModel framework = new FrameworkModel();
        // Dubbo picks the first logging library it finds (log4j 2 may be on the class path);
        // the node logs through SLF4J, so its configuration applies to Dubbo too
        LoggerFactory.setLoggerAdapter(framework, "slf4j");
        DubboBootstrap bootstrap = DubboBootstrap.newInstance(framework);
        ApplicationModel model = bootstrap.getApplicationModel();
        ApplicationConfig application = new ApplicationConfig(model, "hourglass-" + nodeId);
        application.setLogger("slf4j");
        application.setQosEnable(false);
        application.setMetadataType("local");
        application.setRegisterMode("interface");
        application.setEnableFileCache(false);
        application.setShutwait("500");
        ProtocolConfig protocol = new ProtocolConfig(model, "dubbo", port);
        if (host != null) {
            protocol.setHost(host);
        }
        RegistryConfig registry =
                new RegistryConfig(model, registryUrl == null ? RegistryConfig.NO_AVAILABLE : registryUrl);
        registry.setUseAsConfigCenter(false);
        registry.setUseAsMetadataCenter(false);
        registry.setCheck(false);
        bootstrap.application(application).protocol(protocol).registry(registry);
        return bootstrap;
    }

    /** Exports {@code services} (interface to implementation) and starts serving them. */
    public void start(Map<Class<?>, Object> services) {
        for (int tries = 1; ; tries++) {
            DubboBootstrap starting = bootstrap;
            ModuleModel module = starting.getApplicationModel().getDefaultModule();
            for (Map.Entry<Class<?>, Object> s : services.entrySet()) {
                starting.service(serviceConfig(module, s.getKey(), s.getValue()));
            }
            try {
                whileNoOtherDubboStartsOrStops("start", starting::start);
                break;
            } catch (RuntimeException e) {
                close();
                if (!portChosenHere || tries == PORT_TRIES || !portTaken(e)) {
                    throw new IllegalStateException("Dubbo could not start on port " + port + ": " + e.getMessage(), e);
                }
                int taken = port;
                port = freePort(host);
                LOG.warn("Dubbo's port {} was taken before Dubbo bound it; trying port {}", taken, port);
                bootstrap = newBootstrap(port);
            }
        }
        LOG.info(
                "Dubbo serves {} on port {}, registry {}",
                services.keySet().stream().map(Class::getSimpleName).toList(),
                port,
                registryUrl == null ? "none" : registryUrl);
    }

    /**
     * The Dubbo registry URL of a ZooKeeper connect string ({@code h1:2181,h2:2181}): the first
     * server, the others as backups. Dubbo keeps its own root ({@code /dubbo}), so a chroot suffix
     * of the connect string does not apply to it.
     */
    public static String zookeeperRegistry(String connectString) {
        String servers =
                connectString.contains("/") ? connectString.substring(0, connectString.indexOf('/')) : connectString;
        String[] hosts = servers.split(",");
        StringBuilder url = new StringBuilder("zookeeper://").append(hosts[0].trim());
        if (hosts.length > 1) {
            url.append("?backup=");
            for (int i = 1; i < hosts.length; i++) {
                url.append(i > 1 ? "," : "").append(hosts[i].trim());
            }
        }
        return url.toString();
    }

    /**
     * How long a client that found the node through the registry waits for a {@code reserve}: the
     * longest wait it may ask for and ten seconds more. Dubbo's default (1 s) cut every long poll
     * short, and its default failover then asked again, up to three waiters for one caller: the
     * jobs handed to the abandoned ones waited out their TTR and were spent as TIMEOUTs.
     */
    static final int RESERVE_TIMEOUT_MS = (int) PullLimits.MAX_WAIT_MS + 10_000;

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ServiceConfig<?> serviceConfig(ModuleModel module, Class<?> type, Object implementation) {
        ServiceConfig service = new ServiceConfig<>(module);
        service.setInterface(type);
        service.setRef(implementation);
        if (type == DelayJobService.class) {
            // a provider's method settings reach the clients that subscribe through the registry,
            // unless they set their own (a client with a direct url sets its own: docs/api.md, "Dubbo")
            MethodConfig reserve = new MethodConfig();
            reserve.setName("reserve");
            reserve.setTimeout(RESERVE_TIMEOUT_MS);
            reserve.setRetries(0); // a reserve asked again is another waiter, not the same one
            service.setMethods(java.util.List.of(reserve));
        }
        return service;
    }

    /**
     * A reference to a provider of {@code type}: at {@code url} when given (a direct connection),
     * else found through the registry by group and version. Calls are not retried by Dubbo: the
     * scheduler's own retry policy decides. The caller {@linkplain ReferenceConfig#destroy()
     * destroys} it when done.
     */
    public <T> ReferenceConfig<T> reference(Class<T> type, String group, String version, String url, int timeoutMs) {
        ModuleModel module = bootstrap.getApplicationModel().getDefaultModule();
        ReferenceConfig<T> reference = new ReferenceConfig<>(module);
        reference.setInterface(type);
        reference.setGroup(group);
        reference.setVersion(version);
        if (url != null) {
            reference.setUrl(url);
        }
        reference.setTimeout(timeoutMs);
        reference.setRetries(0);
        reference.setCheck(false);
        reference.setParameters(referenceParameters);
        return reference;
    }

    /**
     * The parameters of every reference: interface-level discovery, and reconnection within {@code
     * reconnectMs} instead of Dubbo's 60 s.
     *
     * <p>Why: once a provider's connection breaks, Dubbo takes its invoker out of service ({@code
     * invokersToReconnect}: every call fails "No provider available" without trying) and puts it
     * back only when the connection is up again; nothing reconnects it but the client's reconnect
     * timer, which runs every {@code max(dubbo.application.least-reconnect-duration, heartbeat
     * timeout / 3)}, by default {@code max(60 s, 180 s / 3)}. A provider restarted on the same
     * address therefore stayed unused for up to a minute, also through the registry: its new
     * registration has the same address and so shares the broken connection. With a heartbeat of
     * {@code reconnectMs} and a heartbeat timeout of three of them, the timer runs every {@code
     * reconnectMs}, and the directory's recovery check (every second) puts the invoker back.
     *
     * <p>The price: a heartbeat on an idle connection every {@code reconnectMs}, and a connection
     * that reads nothing (not even a heartbeat answer) for {@code 3 * reconnectMs} is rebuilt, which
     * fails the calls under way on it (they are retried).
     */
    static Map<String, String> referenceParameters(int reconnectMs) {
        return Map.of(
                "migration.step", "FORCE_INTERFACE",
                "heartbeat", Integer.toString(reconnectMs),
                "heartbeat.timeout", Integer.toString(3 * reconnectMs),
                "dubbo.application.least-reconnect-duration", Integer.toString(reconnectMs));
    }

    /** This runtime's own framework model (for tests). */
    FrameworkModel frameworkModel() {
        return bootstrap.getApplicationModel().getFrameworkModel();
    }

    public boolean hasRegistry() {
        return registryUrl != null;
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        whileNoOtherDubboStartsOrStops("stop", () -> {
            try {
                bootstrap.stop();
            } catch (RuntimeException e) {
                LOG.warn("stopping Dubbo: {}", e.toString());
            } finally {
                bootstrap.getApplicationModel().getFrameworkModel().destroy();
            }
        });
    }

    /** Runs {@code action} holding {@link #LIFECYCLE}, or without it once its wait is over. */
    private static void whileNoOtherDubboStartsOrStops(String what, Runnable action) {
        boolean locked = false;
        try {
            locked = LIFECYCLE.tryLock(LIFECYCLE_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            // a stop that gave up on this step: the Dubbo is still to be destroyed, so go on
            Thread.currentThread().interrupt();
        }
        if (!locked) {
            LOG.warn(
                    "did not wait (up to {} ms) for another Dubbo of this JVM to finish starting or stopping;"
                            + " going on to {} this one",
                    LIFECYCLE_WAIT_MS,
                    what);
        }
        try {
            action.run();
        } finally {
            if (locked) {
                LIFECYCLE.unlock();
            }
        }
    }

    /**
     * Whether a start failed because its port was in use: Netty's NIO transport throws {@link
     * BindException}, its native one an {@code IOException} with the system's message, and Dubbo
     * wraps either in its own exception.
     */
    static boolean portTaken(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof BindException
                    || (t.getMessage() != null && t.getMessage().contains("Address already in use"))) {
                return true;
            }
        }
        return false;
    }

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A port free now, for {@code dubbo.port: 0}. Dubbo binds it only when the node starts, seconds
     * later, so the port is taken below Linux's ephemeral range (32768..60999 by default): a port
     * handed out by {@code new ServerSocket(0)} comes from that range, where the OS may give it to
     * any outgoing connection (to ZooKeeper, to the database) before Dubbo binds it, and the start
     * then fails with "Address already in use". Falls back to such a port if none below is free.
     */
    private static int freePort(String host) {
        try {
            InetAddress address = host == null ? null : InetAddress.getByName(host);
            java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
            for (int tries = 0; tries < 50; tries++) {
                int candidate = random.nextInt(BELOW_EPHEMERAL_FROM, BELOW_EPHEMERAL_TO);
                try (ServerSocket s = new ServerSocket(candidate, 1, address)) {
                    return s.getLocalPort();
                } catch (IOException taken) {
                    // in use: another one
                }
            }
            try (ServerSocket s = new ServerSocket(0, 1, address)) {
                return s.getLocalPort();
            }
        } catch (IOException e) {
            throw new IllegalStateException("no free port for Dubbo: " + e.getMessage(), e);
        }
    }

    /** Where {@link #freePort} looks first: below the ephemeral ports, above the well-known ones. */
    static final int BELOW_EPHEMERAL_FROM = 20_000;

    static final int BELOW_EPHEMERAL_TO = 32_768;
}
