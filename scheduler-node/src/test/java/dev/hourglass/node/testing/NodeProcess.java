package dev.hourglass.node.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A node in a JVM process of its own ({@code Main} and a YAML config, started as {@link NodeJvm}
 * says), so it can be killed the hard way: {@link #kill9()} sends SIGKILL, {@link #close()} SIGTERM (graceful).
 */
public final class NodeProcess implements AutoCloseable {
    private final String nodeId;
    private final Process process;
    private final int port;
    private final Path log;
    /** A standalone node's data directory, where it keeps the admin token it generated; null for a cluster node. */
    private final Path dataDir;

    private NodeProcess(String nodeId, Process process, int port, Path log, Path dataDir) {
        this.nodeId = nodeId;
        this.process = process;
        this.port = port;
        this.log = log;
        this.dataDir = dataDir;
    }

    /** Starts a node; {@link #awaitReady()} waits for it. {@code extraYaml} is appended to the config. */
    public static NodeProcess start(String nodeId, String jdbcUrl, String zkConnect, String zkRoot, String extraYaml)
            throws IOException {
        return start(nodeId, jdbcUrl, zkConnect, zkRoot, extraYaml, true);
    }

    /**
     * As {@link #start(String, String, String, String, String)}, with Dubbo off when {@code dubbo}
     * is false (as {@link #startStandalone(String, Path, String, boolean)}): for cluster tests about
     * anything but Dubbo, whose jobs are HTTP callbacks. Dubbo's start is a second or two of CPU in
     * each node process started, on a machine whose two cores the running nodes fire with.
     */
    public static NodeProcess start(
            String nodeId, String jdbcUrl, String zkConnect, String zkRoot, String extraYaml, boolean dubbo)
            throws IOException {
        int port = freePort();
        Path dir = Files.createTempDirectory("hourglass-node-" + nodeId);
        return launch(
                nodeId,
                null,
                dir,
                port,
                String.join(
                        "\n",
                        "nodeId: " + nodeId,
                        "dataDir: " + dir.resolve("data"),
                        "adminToken: " + TestNodes.ADMIN_TOKEN,
                        "http:",
                        "  host: 127.0.0.1",
                        "  port: " + port,
                        "database:",
                        "  url: \"" + jdbcUrl + "\"",
                        "  user: root",
                        "  password: \"\"",
                        "dubbo:",
                        dubbo ? "  host: 127.0.0.1" : "  enabled: false\n  host: 127.0.0.1",
                        "  port: 0",
                        "cluster:",
                        "  zkConnect: \"" + zkConnect + "\"",
                        "  zkRoot: " + zkRoot,
                        extraYaml == null ? "" : extraYaml,
                        ""));
    }

    /**
     * Starts a standalone node as the README's bare command runs it: no database URL, no
     * ZooKeeper, no admin token configured, so embedded H2 and an embedded ZooKeeper in
     * {@code dataDir} and the admin token generated into {@code dataDir/admin-token}. Start it
     * again on the same {@code dataDir} to restart it (after {@link #kill9()} or {@link #close()}).
     * The node id is generated, as for a user; {@code label} names the process in messages.
     * {@code extraYaml} holds further top-level keys (not {@code http}, {@code dubbo} or
     * {@code dataDir}, which this sets). The config and the log go to {@code node-<label>} beside
     * {@code dataDir}, so a test's temporary directory holds (and removes) them all.
     */
    public static NodeProcess startStandalone(String label, Path dataDir, String extraYaml) throws IOException {
        return startStandalone(label, dataDir, extraYaml, true);
    }

    /**
     * As {@link #startStandalone(String, Path, String)}, with Dubbo off when {@code dubbo} is
     * false: 2.5 s less per start, for tests about anything but Dubbo that start many nodes.
     */
    public static NodeProcess startStandalone(String label, Path dataDir, String extraYaml, boolean dubbo)
            throws IOException {
        int port = freePort();
        Path dir = Files.createDirectories(dataDir.toAbsolutePath().getParent().resolve("node-" + label));
        return launch(
                label,
                dataDir,
                dir,
                port,
                String.join(
                        "\n",
                        "dataDir: " + dataDir,
                        "http:",
                        "  host: 127.0.0.1",
                        "  port: " + port,
                        "dubbo:",
                        "  enabled: " + dubbo,
                        "  host: 127.0.0.1",
                        "  port: 0",
                        extraYaml == null ? "" : extraYaml,
                        ""));
    }

    /**
     * A port free now, for a node process that binds it seconds later: taken below Linux's
     * ephemeral range, where no outgoing connection of this machine can take it meanwhile (a port
     * from {@code new ServerSocket(0)} can be, and the node then fails to start).
     */
    public static int freePort() throws IOException {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int tries = 0; tries < 50; tries++) {
            int candidate = random.nextInt(20_000, 32_768);
            try (ServerSocket s = new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException taken) {
                // in use: another one
            }
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static NodeProcess launch(String nodeId, Path dataDir, Path dir, int port, String yaml) throws IOException {
        Path config = dir.resolve("hourglass.yaml");
        Files.writeString(config, yaml);
        Path log = dir.resolve("node.log");
        Process p = new ProcessBuilder(NodeJvm.command(List.of("--config", config.toString())))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new NodeProcess(nodeId, p, port, log, dataDir);
    }

    public NodeProcess awaitReady() {
        HttpClient http = HttpClient.newHttpClient();
        Awaitility.await("node " + nodeId + " ready (log: " + log + ")")
                // a hang bound, not a measure: a start is about 4.4 CPU-seconds, and the alongside
                // classes' processes share two cores with other test JVMs and their nodes
                .atMost(Duration.ofSeconds(300))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("node " + nodeId + " exited; see " + log);
                    }
                    try {
                        return http.send(
                                                HttpRequest.newBuilder(URI.create(baseUrl() + "/health/ready"))
                                                        .timeout(Duration.ofSeconds(2))
                                                        .build(),
                                                HttpResponse.BodyHandlers.discarding())
                                        .statusCode()
                                == 200;
                    } catch (IOException notListeningYet) {
                        return false;
                    }
                });
        return this;
    }

    /**
     * Waits for {@code text} in the node's output: Main prints its start banner (ready address,
     * admin token line) after the HTTP server already answers ready, so a test reading the banner
     * right after {@link #awaitReady()} races it.
     */
    public String awaitOutput(String text, Duration within) {
        String[] seen = {""};
        Awaitility.await("\"" + text + "\" in " + log)
                .atMost(within)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    seen[0] = Files.readString(log, java.nio.charset.StandardCharsets.UTF_8);
                    return seen[0].contains(text);
                });
        return seen[0];
    }

    public String nodeId() {
        return nodeId;
    }

    /**
     * A client with the admin token a standalone node generated into its data directory on its
     * first start (the README's bare command): what a new user copies from the banner.
     */
    public ApiClient admin() throws IOException {
        if (dataDir == null) {
            throw new IllegalStateException("node " + nodeId + " is not standalone: its admin token is the test's own");
        }
        return new ApiClient(
                baseUrl(),
                Files.readString(dataDir.resolve("admin-token"), StandardCharsets.UTF_8)
                        .trim());
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    public Path log() {
        return log;
    }

    /**
     * The node's threads ({@code jcmd Thread.print}) written next to its log, for a test that found
     * it stuck; returns the file, or what went wrong (the dump is a diagnosis, never a verdict).
     */
    public String dumpThreads() {
        Path out = log.resolveSibling("threads.txt");
        try {
            Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.print")
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "jcmd did not answer within 30 s";
            }
            return out.toString();
        } catch (IOException e) {
            return "no thread dump: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "no thread dump: interrupted";
        }
    }

    /** The log's warnings and errors, the last {@code max} of them. */
    public String warnings(int max) {
        try (var lines = Files.lines(log)) {
            List<String> found = lines.filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
                    .toList();
            return String.join("\n", found.subList(Math.max(0, found.size() - max), found.size()));
        } catch (IOException | java.io.UncheckedIOException e) {
            return "log not readable: " + e;
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to end by itself (a refused start); its exit code. */
    public int awaitExit(Duration within) throws InterruptedException {
        if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("node " + nodeId + " still running after " + within + "; see " + log);
        }
        return process.exitValue();
    }

    /** SIGSTOP then, later, SIGCONT: a process frozen as by a long GC pause, alive all along. */
    public void pause() throws IOException, InterruptedException {
        signal("-STOP");
    }

    public void resume() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        if (!process.isAlive()) {
            return; // nothing to freeze or thaw (a node that failed to start, or was killed)
        }
        Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
        }
    }

    /** SIGKILL: no shutdown hook, no goodbye to ZooKeeper; its session expires by timeout. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * SIGTERM, then waits up to {@code max} for the process to exit.
     *
     * @return how long it took to exit; when it did not within {@code max}, a thread dump is
     *     appended to its {@link #log()}, it is killed (SIGKILL) and an AssertionError says so
     */
    public Duration terminateWithin(Duration max) throws IOException, InterruptedException {
        long start = System.nanoTime();
        process.destroy();
        if (process.waitFor(max.toMillis(), TimeUnit.MILLISECONDS)) {
            return Duration.ofNanos(System.nanoTime() - start);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process dump = new ProcessBuilder(java, Long.toString(process.pid()), "Thread.print")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        dump.waitFor(20, TimeUnit.SECONDS);
        kill9();
        throw new AssertionError(
                "node " + nodeId + " still running " + max.toMillis() + " ms after SIGTERM; thread dump in " + log);
    }

    /** SIGTERM: the graceful shutdown path. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
