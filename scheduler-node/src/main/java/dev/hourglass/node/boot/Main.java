package dev.hourglass.node.boot;

import dev.hourglass.node.config.ConfigException;
import dev.hourglass.node.config.ConfigLoader;
import dev.hourglass.node.config.NodeConfig;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code java -jar hourglass-node.jar [--config FILE] [--version]} (README.md, "Configuration"). */
public final class Main {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);
    static final String DUBBO_OWN_SHUTDOWN_HOOK_OFF = "dubbo.shutdownHook.listenIgnore";
    static final String DUBBO_LOGGER = "dubbo.application.logger";
    /** Past the node's own stop bound, a stop that still has not ended is cut short. */
    private static final long LAST_RESORT_MARGIN_MS = 5_000;

    private Main() {}

    /**
     * SIGTERM: the node's graceful stop, itself bounded; should anything else hold the JVM (another
     * library's hook), a watchdog halts it {@value #LAST_RESORT_MARGIN_MS} ms past that bound.
     */
    private static void stop(HourglassNode node, long stopBoundMs) {
        Thread watchdog = new Thread(
                () -> {
                    try {
                        Thread.sleep(stopBoundMs + LAST_RESORT_MARGIN_MS);
                    } catch (InterruptedException e) {
                        return;
                    }
                    LOG.error("the stop did not end within {} ms; halting", stopBoundMs + LAST_RESORT_MARGIN_MS);
                    Runtime.getRuntime().halt(1);
                },
                "hourglass-stop-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        node.close();
        LOG.info("stopped");
    }

    public static void main(String[] args) {
        Path configFile = null;
        for (int i = 0; i < args.length; i++) {
            if ("--config".equals(args[i]) && i + 1 < args.length) {
                configFile = Path.of(args[++i]);
            } else if ("--help".equals(args[i]) || "-h".equals(args[i])) {
                System.out.println("usage: java -jar hourglass-node.jar [--config FILE] [--version]");
                return;
            } else if ("--version".equals(args[i])) {
                System.out.println("hourglass-node " + BuildInfo.version());
                return;
            } else {
                System.err.println("unknown argument: " + args[i]
                        + " (usage: java -jar hourglass-node.jar [--config FILE] [--version])");
                System.exit(2);
            }
        }
        NodeConfig config;
        try {
            config = ConfigLoader.load(configFile, System.getenv());
        } catch (ConfigException e) {
            System.err.println("hourglass: bad configuration: " + e.getMessage());
            System.exit(2);
            return;
        }
        // the node's hook owns the stop order; Dubbo's own hook would stop Dubbo beside it, unbounded
        // (its registry unregistration waits 30 s per URL while ZooKeeper is down) and the JVM waits
        // for every hook. Read when Dubbo's application is created, so before the node starts.
        System.setProperty(DUBBO_OWN_SHUTDOWN_HOOK_OFF, "true");
        // Dubbo logs through the first logging library it finds (log4j 2 may be on the class path,
        // unconfigured); through SLF4J the node's logback.xml applies to it, quieting its NetUtils
        if (System.getProperty(DUBBO_LOGGER) == null) {
            System.setProperty(DUBBO_LOGGER, "slf4j");
        }
        HourglassNode node;
        try {
            node = HourglassNode.start(config);
        } catch (ConfigException e) {
            System.err.println("hourglass: bad configuration: " + e.getMessage());
            System.exit(2);
            return;
        }
        long stopBoundMs = config.engine.shutdownGraceMs + HourglassNode.STOP_BEYOND_GRACE_MS;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(node, stopBoundMs), "hourglass-shutdown"));
        System.out.println();
        System.out.println("Hourglass node " + node.nodeId() + " is ready at " + node.baseUrl()
                + (config.isStandalone()
                        ? " (standalone: H2 in " + Path.of(config.dataDir).toAbsolutePath() + ")"
                        : ""));
        // a secret: printed only the one time it is new, never again at later starts (logs are kept)
        if (node.adminTokenGenerated()) {
            System.out.println("Admin token (new; kept in "
                    + Path.of(config.dataDir).toAbsolutePath().resolve(AdminTokenFile.NAME) + "): "
                    + node.adminToken());
        } else if (config.adminToken == null) {
            System.out.println("Admin token: the one kept in "
                    + Path.of(config.dataDir).toAbsolutePath().resolve(AdminTokenFile.NAME));
        } else {
            System.out.println("Admin token: the configured one");
        }
        System.out.println();
    }
}
