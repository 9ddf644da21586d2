package dev.hourglass.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU time (user + system) that a set of processes used, read from {@code /proc/<pid>/stat}: what
 * the benchmark reports as the CPU cost of a job, for the node and for its database apart. The
 * processes are given by pid (the run script passes the node's and the database server's); a
 * process that is gone counts as 0 from then on. Linux only; elsewhere the figures are absent.
 */
final class ProcessCpu {
    /** Clock ticks per second of {@code /proc}'s times: 100 on every Linux the JDK runs on here. */
    private static final double TICKS_PER_SECOND = 100.0;

    private final List<Long> pids = new ArrayList<>();

    ProcessCpu(String commaSeparatedPids) {
        if (commaSeparatedPids != null) {
            for (String p : commaSeparatedPids.split(",")) {
                if (!p.isBlank()) {
                    pids.add(Long.parseLong(p.trim()));
                }
            }
        }
    }

    boolean isEmpty() {
        return pids.isEmpty();
    }

    /** CPU seconds used so far by the processes together. */
    double seconds() {
        long ticks = 0;
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                // the command name in parentheses may hold spaces: fields are counted after its ')'
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
            } catch (IOException | RuntimeException gone) {
                // not running (any more): nothing to add
            }
        }
        return ticks / TICKS_PER_SECOND;
    }

    /**
     * CPU seconds the whole machine was busy so far (every process, from the first line of {@code
     * /proc/stat}): less the measured processes, what others took from them meanwhile. NaN where
     * unreadable.
     */
    static double machineBusySeconds() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) { // user nice system irq softirq steal
                busy += Long.parseLong(f[i]);
            }
            return busy / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
