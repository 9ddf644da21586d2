package dev.hourglass.node.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * How a node process is started: the JVM's options and what it runs. When the build's shaded jar
 * ({@code target/hourglass-node.jar}, made by {@code package}, before the integration tests) is
 * newer than every compiled class, the node runs from it, as users run it, with a class-data
 * archive of its classes (AppCDS): a start then takes about 3.9 s instead of 6.1-7.3 s and 4.4
 * CPU-s instead of 6.8-8.2 (standalone node, measured 2026-11-26), and the suite starts some fifty
 * node processes. Without a current jar (a test run from an IDE after an edit) the node runs from
 * the test's classpath, without an archive: slower, the same code.
 *
 * <p>The archive is made once per jar by a throwaway node that starts, answers ready and stops
 * (the JVM writes what it loaded at its exit), under a file lock, as two test JVMs may start
 * nodes at the same time. JDK 17 cannot archive classes from directories, hence the jar.
 */
final class NodeJvm {
    /**
     * scheduler-node's directory: the working directory of its own tests, named by the system
     * property {@code hourglass.node.module} in another module's (the Spring Boot starter's).
     */
    private static final Path MODULE = Path.of(System.getProperty("hourglass.node.module", ""));

    private static final Path JAR =
            MODULE.resolve("target").resolve("hourglass-node.jar").toAbsolutePath();
    private static final Path CLASSES = MODULE.resolve("target").resolve("classes");
    private static final Path ARCHIVES =
            MODULE.resolve("target").resolve("node-cds").toAbsolutePath();

    private static List<String> options;

    private NodeJvm() {}

    /** The command that runs {@code Main} with {@code args}. */
    static List<String> command(List<String> args) {
        List<String> command = new ArrayList<>(options());
        command.addAll(args);
        return command;
    }

    private static synchronized List<String> options() {
        if (options == null) {
            options = choose();
        }
        return options;
    }

    private static List<String> choose() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> base = List.of(
                java,
                "-Xmx384m",
                "-XX:+UseSerialGC",
                // the client compiler only: these tests start up to four nodes on two cores,
                // where the server compiler's work on each start took the CPU the running
                // nodes fire with (start to ready measured 7.3-8.3 s, 5.7-5.8 s with C1 only)
                "-XX:TieredStopAtLevel=1");
        List<String> fromClasspath = new ArrayList<>(base);
        fromClasspath.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.hourglass.node.boot.Main"));
        if (!jarIsCurrent()) {
            System.err.println("node processes run from the test classpath, without a class-data archive: " + JAR
                    + " is missing or older than " + CLASSES + " (./mvnw package makes it)");
            return fromClasspath;
        }
        List<String> fromJar = new ArrayList<>(base);
        Path archive = archive(base);
        if (archive != null) {
            fromJar.add("-XX:SharedArchiveFile=" + archive);
        }
        fromJar.addAll(List.of("-cp", JAR.toString(), "dev.hourglass.node.boot.Main"));
        return fromJar;
    }

    private static boolean jarIsCurrent() {
        if (!Files.isRegularFile(JAR)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(CLASSES)) {
            FileTime jar = Files.getLastModifiedTime(JAR);
            return files.filter(Files::isRegularFile).allMatch(f -> modified(f).compareTo(jar) <= 0);
        } catch (IOException e) {
            return false;
        }
    }

    private static FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This jar's archive, made now if no test JVM made it yet; null if it cannot be made. */
    private static Path archive(List<String> base) {
        try {
            Files.createDirectories(ARCHIVES);
            Path archive = ARCHIVES.resolve(
                    "node-" + Files.getLastModifiedTime(JAR).toMillis() + "-" + Files.size(JAR) + ".jsa");
            try (FileChannel lock = FileChannel.open(
                            ARCHIVES.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock held = lock.lock()) {
                if (!Files.exists(archive)) {
                    dropOlderArchives();
                    dump(base, archive);
                }
            }
            return Files.exists(archive) ? archive : null;
        } catch (IOException | RuntimeException e) {
            System.err.println("no class-data archive for the node processes: " + e);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The archives of earlier jars (76 MB each): a JVM still mapping one keeps it until it exits. */
    private static void dropOlderArchives() throws IOException {
        try (Stream<Path> files = Files.list(ARCHIVES)) {
            for (Path old : files.filter(f -> f.getFileName().toString().endsWith(".jsa"))
                    .toList()) {
                Files.deleteIfExists(old);
            }
        }
    }

    /** A standalone node started and stopped with {@code -XX:ArchiveClassesAtExit}. */
    private static void dump(List<String> base, Path archive) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("hourglass-node-cds");
        int port = NodeProcess.freePort();
        Path config = dir.resolve("hourglass.yaml");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "dataDir: " + dir.resolve("data"),
                        "http:",
                        "  host: 127.0.0.1",
                        "  port: " + port,
                        "dubbo:",
                        "  host: 127.0.0.1",
                        "  port: 0",
                        ""));
        Path written = ARCHIVES.resolve(archive.getFileName() + ".part");
        List<String> command = new ArrayList<>(base);
        command.addAll(List.of(
                "-XX:ArchiveClassesAtExit=" + written,
                "-cp",
                JAR.toString(),
                "dev.hourglass.node.boot.Main",
                "--config",
                config.toString()));
        Process node = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("node.log").toFile())
                .start();
        try {
            if (awaitReady(node, port)) {
                node.destroy(); // SIGTERM: a graceful stop, and the JVM writes the archive at its exit
                if (node.waitFor(60, TimeUnit.SECONDS) && Files.exists(written) && Files.size(written) > 0) {
                    Files.move(written, archive, StandardCopyOption.ATOMIC_MOVE);
                }
            }
        } finally {
            node.destroyForcibly();
            node.waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(written);
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    private static boolean awaitReady(Process node, int port) throws InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready"))
                .timeout(Duration.ofSeconds(2))
                .build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (node.isAlive() && System.nanoTime() < deadline) {
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return true;
                }
            } catch (IOException notListeningYet) {
                // starting
            }
            Thread.sleep(100);
        }
        return false;
    }
}
