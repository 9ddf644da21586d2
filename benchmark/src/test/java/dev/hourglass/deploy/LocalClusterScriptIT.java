package dev.hourglass.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/local-cluster.sh as the README tells a user to run it (after the build: this module's
 * integration tests run after its package phase, so the node jar and the launcher's classpath
 * exist): it starts a cluster whose nodes share the master's assignment, prints the URLs and the
 * admin token, and stops every process it started.
 */
class LocalClusterScriptIT {
    @TempDir
    Path dir;

    private static int freeBlock(int size) throws IOException {
        for (int tries = 0; tries < 50; tries++) {
            int base = 20_000 + ThreadLocalRandom.current().nextInt(20_000);
            boolean free = true;
            for (int p = base; p < base + size && free; p++) {
                try (ServerSocket s = new ServerSocket(p, 1, java.net.InetAddress.getLoopbackAddress())) {
                    // bindable
                } catch (IOException taken) {
                    free = false;
                }
            }
            if (free) {
                return base;
            }
        }
        throw new IOException("no block of " + size + " free ports");
    }

    private Process script(String command, Map<String, String> env) throws IOException {
        Path repo = Path.of(System.getProperty("user.dir")).resolve("..").normalize();
        ProcessBuilder pb = new ProcessBuilder(
                        "bash", repo.resolve("deploy/local-cluster.sh").toString(), command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(command + ".out").toFile());
        pb.environment().putAll(env);
        return pb.start();
    }

    private String output(String command) throws IOException {
        return Files.readString(dir.resolve(command + ".out"), StandardCharsets.UTF_8);
    }

    /**
     * The last lines of each node's log: a failed start leaves its directory in the test's
     * temporary one, which JUnit deletes, so what the nodes said is kept in the failure message.
     */
    private String nodeLogTails() throws IOException {
        StringBuilder tails = new StringBuilder();
        for (int i = 1; i <= 2; i++) {
            Path log = dir.resolve("cluster/node-" + i + ".log");
            if (Files.exists(log)) {
                // decoded leniently: a failure message must not fail on a stray byte
                List<String> lines = new String(Files.readAllBytes(log), StandardCharsets.UTF_8)
                        .lines()
                        .toList();
                tails.append("\n--- node-")
                        .append(i)
                        .append(".log, last lines:\n")
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
            }
        }
        return tails.toString();
    }

    @Test
    void startsAClusterPrintsWhatAUserNeedsAndStopsEverything() throws Exception {
        int base = freeBlock(2);
        int dbPort = freeBlock(1);
        Map<String, String> env = Map.of(
                "NODES", "2",
                "BASE_PORT", Integer.toString(base),
                "DB_PORT", Integer.toString(dbPort),
                "DIR", dir.resolve("cluster").toString(),
                // the options the node module's tests start nodes with: C1 only and the serial
                // collector, as two node starts share the two cores with the other modules' tests
                "NODE_JAVA_OPTS", "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
        List<Long> started = List.of();
        try {
            Process start = script("start", env);
            assertThat(start.waitFor(240, TimeUnit.SECONDS))
                    .as("start within 4 minutes")
                    .isTrue();
            assertThat(start.exitValue()).as(output("start") + nodeLogTails()).isZero();
            String printed = output("start");
            assertThat(printed).contains("http://127.0.0.1:" + base).contains("http://127.0.0.1:" + (base + 1));
            String token = Files.readString(dir.resolve("cluster/admin-token")).trim();
            assertThat(printed).contains("Admin token: " + token);
            started = Files.readAllLines(dir.resolve("cluster/pids")).stream()
                    .map(Long::parseLong)
                    .toList();
            assertThat(started).hasSize(3);

            ApiClient.Answer cluster = new ApiClient("http://127.0.0.1:" + (base + 1), token).get("/api/v1/cluster");
            assertThat(cluster.status()).isEqualTo(200);
            JsonNode view = cluster.json();
            assertThat(view.get("nodes")).hasSize(2);
            assertThat(view.get("master").asText()).startsWith("local-");
        } finally {
            Process stop = script("stop", env);
            assertThat(stop.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(stop.exitValue()).as(output("stop")).isZero();
        }
        for (long pid : started) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as("process %d stopped", pid)
                    .isFalse();
        }
        assertThat(dir.resolve("cluster/pids")).doesNotExist();
    }

    /**
     * A pid file left from an earlier run (after a reboot, say) may name a process that is not
     * the cluster's any more: {@code stop} leaves it alone and forgets the file.
     */
    @Test
    void stopLeavesAlonePidsThatAreNoLongerTheClusters() throws Exception {
        Process stranger = new ProcessBuilder("sleep", "60").start();
        try {
            Path cluster = Files.createDirectories(dir.resolve("cluster"));
            Files.writeString(cluster.resolve("pids"), stranger.pid() + "\n");
            Process stop = script("stop", Map.of("DIR", cluster.toString()));
            assertThat(stop.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(stop.exitValue()).as(output("stop")).isZero();
            assertThat(output("stop")).contains("stopped");
            assertThat(stranger.isAlive())
                    .as("a process the cluster did not start")
                    .isTrue();
            assertThat(cluster.resolve("pids")).doesNotExist();
        } finally {
            stranger.destroyForcibly();
        }
    }
}
