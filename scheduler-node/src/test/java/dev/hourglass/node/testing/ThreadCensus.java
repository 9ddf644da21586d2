package dev.hourglass.node.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * After each test class, a line in {@code target/thread-census-<pid>.txt}: the JVM's live threads
 * by name (digits dropped) and the CPU it has used so far. The integration-test classes of a phase
 * share a JVM (two JVMs in the phases that run two at a time) and two cores: a class that leaves
 * threads running (a node, a broker, a client not closed) makes every later class slower and its
 * timing bounds flaky, and this is where that shows. The machine's busy CPU time so far (all
 * processes: the nodes, MariaDB and brokers a class starts in processes of their own included) tells,
 * line to line, how much of the two cores a class kept busy, which decides the phase it can run in.
 */
public final class ThreadCensus implements TestExecutionListener {
    private final Path file =
            Path.of("target", "thread-census-" + ProcessHandle.current().pid() + ".txt");

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (!(test.getSource().orElse(null) instanceof ClassSource source)) {
            return;
        }
        Map<String, Long> byName = Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .collect(Collectors.groupingBy(
                        t -> t.getName().replaceAll("\\d+", "#"), TreeMap::new, Collectors.counting()));
        long threads = byName.values().stream().mapToLong(Long::longValue).sum();
        String cpu = ProcessHandle.current()
                .info()
                .totalCpuDuration()
                .map(d -> d.toSeconds() + " s")
                .orElse("?");
        String top = byName.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(8)
                .map(e -> e.getValue() + " " + e.getKey())
                .collect(Collectors.joining(", "));
        String line = String.format(
                "%s %s: %d threads, JVM CPU %s, machine busy %s; %s%n",
                java.time.Instant.now(), source.getClassName(), threads, cpu, machineBusy(), top);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            // a census line lost fails no test
        }
    }

    /** Busy CPU seconds of the whole machine since boot, from the first line of /proc/stat (Linux). */
    private static String machineBusy() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length; i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle, iowait
            return (total - idle) / 100 + " s"; // USER_HZ is 100 on Linux
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
