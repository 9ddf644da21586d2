package dev.hourglass.node.testing;

import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import java.nio.file.Files;
import java.nio.file.Path;

/** Nodes for integration tests: loopback only, random port, fast housekeeping. */
public final class TestNodes {
    public static final String ADMIN_TOKEN = "test-admin-token-0123456789";

    private TestNodes() {}

    public static NodeConfig config(String jdbcUrl) {
        NodeConfig c = new NodeConfig();
        c.http.host = "127.0.0.1";
        c.http.port = 0;
        c.adminToken = ADMIN_TOKEN;
        c.dubbo.host = "127.0.0.1"; // registers and calls loopback only
        c.dubbo.port = 0;
        try {
            c.dataDir = Files.createTempDirectory("hourglass-test").toString();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        c.database.url = jdbcUrl;
        c.database.user = "root";
        c.database.password = "";
        c.engine.loadIntervalMs = 200;
        c.engine.catchUpIntervalMs = 500;
        c.engine.timeoutSweepIntervalMs = 200;
        c.engine.shutdownGraceMs = 2_000;
        return c;
    }

    public static HourglassNode start(NodeConfig config) {
        return HourglassNode.start(config);
    }

    public static Path tempDir() {
        try {
            return Files.createTempDirectory("hourglass-test");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
