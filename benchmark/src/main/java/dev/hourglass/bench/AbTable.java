package dev.hourglass.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The table of an A/B run ({@code benchmark/ab.sh}): for each figure LoadBench reported, every
 * round's value of build A and of build B, their medians and B / A. Interleaved rounds in the same
 * hour are the only fair comparison on a machine whose speed drifts 2–3× within a day.
 *
 * <p>Usage: {@code AbTable DIR LABEL_A LABEL_B}, DIR holding {@code A-<round>.json} and
 * {@code B-<round>.json}.
 */
public final class AbTable {
    /** The figures worth a row, in this order; others are left out. */
    private static final List<String> FIGURES = List.of(
            "submitRatePerSec",
            "acknowledgedPerSec",
            "fireThroughputPerSec",
            "latenessMs.p50",
            "latenessMs.p99",
            "latenessMs.p999",
            "latenessMs.max",
            "latenessInNodeMs.p99",
            "submitLatencyMs.p50",
            "submitLatencyMs.p99",
            "cpuSecondsPer1000Jobs.node",
            "cpuSecondsPer1000Jobs.database",
            "cpuSecondsPer1000Jobs.both",
            "delivered",
            "missed",
            "duplicated",
            "early",
            // the pull workload (PullBench): its two parts
            "throughput.jobsPerSec",
            "throughput.reserveLatencyMs.p50",
            "throughput.reserveLatencyMs.p99",
            "throughput.resultsLatencyMs.p50",
            "throughput.resultsLatencyMs.p99",
            "throughput.cpuSecondsPer1000Jobs.node",
            "throughput.cpuSecondsPer1000Jobs.database",
            "throughput.cpuSecondsPer1000Jobs.both",
            "throughput.missed",
            "throughput.duplicated",
            "throughput.databaseDeadlocks",
            "steady.latenessMs.p50",
            "steady.latenessMs.p99",
            "steady.latenessMs.p999",
            "steady.latenessMs.max",
            "steady.latenessSameNodeMs.p50",
            "steady.latenessSameNodeMs.p99",
            "steady.latenessSameNodeMs.p999",
            "steady.latenessSameNodeMs.max",
            "steady.latenessSameNodeMs.count",
            "steady.latenessOtherNodeMs.p50",
            "steady.latenessOtherNodeMs.p99",
            "steady.latenessOtherNodeMs.p999",
            "steady.latenessOtherNodeMs.max",
            "steady.latenessOtherNodeMs.count",
            "steady.cpuSecondsPer1000Jobs.node",
            "steady.cpuSecondsPer1000Jobs.database",
            "steady.early",
            "steady.missed",
            "steady.duplicated");

    private AbTable() {}

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        List<JsonNode> a = read(dir, "A-");
        List<JsonNode> b = read(dir, "B-");
        System.out.printf(
                "| figure | %s (each round) | %s (each round) | median A | median B | B / A |%n", args[1], args[2]);
        System.out.println("|---|---|---|---|---|---|");
        for (String figure : FIGURES) {
            List<Double> va = values(a, figure);
            List<Double> vb = values(b, figure);
            if (va.isEmpty() && vb.isEmpty()) {
                continue;
            }
            double ma = median(va);
            double mb = median(vb);
            System.out.printf(
                    "| %s | %s | %s | %s | %s | %s |%n",
                    figure,
                    join(va),
                    join(vb),
                    format(ma),
                    format(mb),
                    ma == 0 || Double.isNaN(ma) || Double.isNaN(mb) ? "—" : String.format("%.2f", mb / ma));
        }
    }

    private static List<JsonNode> read(Path dir, String prefix) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith(prefix)
                            && p.toString().endsWith(".json"))
                    .sorted(Comparator.comparing(Path::toString))
                    .toList()) {
                try {
                    out.add(json.readTree(f.toFile()));
                } catch (IOException e) {
                    System.err.println(f + ": not a LoadBench report (" + e.getMessage() + ")");
                }
            }
        }
        return out;
    }

    private static List<Double> values(List<JsonNode> runs, String figure) {
        List<Double> out = new ArrayList<>();
        for (JsonNode run : runs) {
            JsonNode n = run;
            for (String part : figure.split("\\.")) {
                n = n.path(part);
            }
            if (n.isNumber()) {
                out.add(n.asDouble());
            }
        }
        return out;
    }

    private static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String join(List<Double> values) {
        Map<Integer, String> parts = new LinkedHashMap<>();
        for (int i = 0; i < values.size(); i++) {
            parts.put(i, format(values.get(i)));
        }
        return String.join(", ", parts.values());
    }

    private static String format(double v) {
        if (Double.isNaN(v)) {
            return "—";
        }
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format("%.2f", v);
    }
}
