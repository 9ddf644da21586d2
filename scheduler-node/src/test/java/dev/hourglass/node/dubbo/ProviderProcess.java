package dev.hourglass.node.dubbo;

import dev.hourglass.api.CallbackResult;
import dev.hourglass.sdk.dubbo.CallbackExporter;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A business {@code JobCallbackService} provider (the SDK's {@link CallbackExporter}, answering
 * SUCCESS) in a JVM of its own, so a test can kill it as a real provider dies: {@link #kill9()}
 * leaves its registration in ZooKeeper until its session expires, {@link #close()} (SIGTERM) lets
 * Dubbo's shutdown hook unregister it.
 */
final class ProviderProcess implements AutoCloseable {
    private static final String WARM = "PROVIDER WARM";
    private static final String READY = "PROVIDER READY";

    private final Process process;
    private final Path log;

    private ProviderProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts the JVM of a provider of {@code group}/1.0 on 127.0.0.1:{@code port} (registry null:
     * none), and waits until it is warm; it exports once told to ({@link #export()}), so a test can
     * time a restart without the JVM's start-up in it.
     */
    static ProviderProcess start(String group, int port, String registry) throws IOException {
        Path log = Files.createTempFile("hourglass-provider-" + group, ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(
                        java,
                        "-Xmx128m",
                        "-XX:+UseSerialGC",
                        // the client compiler only, as the node processes: a start that warms in
                        // less CPU, and the scenario waits for it
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        ProviderProcess.class.getName(),
                        group,
                        Integer.toString(port),
                        registry == null ? "-" : registry)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        ProviderProcess provider = new ProviderProcess(p, log);
        provider.awaitLine(WARM);
        return provider;
    }

    /** Tells the provider to export (and register) now; {@link #awaitReady()} waits for it. */
    ProviderProcess export() throws IOException {
        process.getOutputStream().write("export\n".getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
        return this;
    }

    /** Waits until the provider is exported (and registered, with a registry). */
    ProviderProcess awaitReady() {
        awaitLine(READY);
        return this;
    }

    private void awaitLine(String line) {
        Awaitility.await("provider: " + line + " (log: " + log + ")")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("the provider exited; see " + log);
                    }
                    return Files.readString(log).contains(line);
                });
    }

    /** SIGKILL: no goodbye; its registration stays in ZooKeeper until its session expires. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM: Dubbo's shutdown hook unregisters it and closes its connections. */
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

    /**
     * {@code group port registry|-}: warms up, prints {@value #WARM}, waits for a line on standard
     * input, exports, prints {@value #READY}, serves until killed.
     */
    public static void main(String[] args) throws Exception {
        CallbackExporter exporter = CallbackExporter.of(request -> CallbackResult.success())
                .group(args[0])
                .version("1.0")
                .host("127.0.0.1")
                .port(Integer.parseInt(args[1]));
        if (!args[2].equals("-")) {
            exporter.registry(args[2]);
        }
        // Dubbo's classes loaded and initialised before the signal: the export that follows it takes a
        // moment, not a cold JVM's seconds
        int spare;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            spare = s.getLocalPort();
        }
        CallbackExporter.of(request -> CallbackResult.success())
                .group("warm-up")
                .version("0")
                .host("127.0.0.1")
                .port(spare)
                .start()
                .close();
        System.out.println(WARM);
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        exporter.start();
        System.out.println(READY);
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
