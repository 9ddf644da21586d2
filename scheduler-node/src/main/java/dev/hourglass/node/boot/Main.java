package dev.hourglass.node.boot;

import dev.hourglass.node.config.ConfigException;
import dev.hourglass.node.config.ConfigLoader;
import dev.hourglass.node.config.NodeConfig;
import java.nio.file.Path;

/** {@code java -jar hourglass-node.jar [--config FILE]} (SPEC §8). */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        Path configFile = null;
        for (int i = 0; i < args.length; i++) {
            if ("--config".equals(args[i]) && i + 1 < args.length) {
                configFile = Path.of(args[++i]);
            } else if ("--help".equals(args[i]) || "-h".equals(args[i])) {
                System.out.println("usage: java -jar hourglass-node.jar [--config FILE]");
                return;
            } else {
                System.err.println(
                        "unknown argument: " + args[i] + " (usage: java -jar hourglass-node.jar [--config FILE])");
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
        HourglassNode node;
        try {
            node = HourglassNode.start(config);
        } catch (ConfigException e) {
            System.err.println("hourglass: bad configuration: " + e.getMessage());
            System.exit(2);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(node::close, "hourglass-shutdown"));
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
