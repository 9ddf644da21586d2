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
                ticks += ticks(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
            } catch (IOException | RuntimeException gone) {
                // not running (any more): nothing to add
            }
        }
        return ticks / TICKS_PER_SECOND;
    }

    /**
     * CPU seconds so far of the processes' JIT compiler threads (HotSpot names them {@code C1
     * CompilerThread<n>} and {@code C2 CompilerThread<n>}, cut to 15 characters in {@code comm}):
     * how far from warm a node still is. A node keeps compiling for a minute or two under a new
     * kind of load on these cores, at a third of a core and more (docs/performance.md).
     */
    double compilerSeconds() {
        long ticks = 0;
        for (long pid : pids) {
            Path tasks = Path.of("/proc", Long.toString(pid), "task");
            try (var threads = Files.list(tasks)) {
                for (Path thread : (Iterable<Path>) threads::iterator) {
                    ticks += compilerTicks(thread);
                }
            } catch (IOException | RuntimeException gone) {
                // not running (any more): nothing to add
            }
        }
        return ticks / TICKS_PER_SECOND;
    }

    private static long compilerTicks(Path thread) {
        try {
            String name = Files.readString(thread.resolve("comm"));
            if (!name.startsWith("C1 Compiler") && !name.startsWith("C2 Compiler")) {
                return 0;
            }
            return ticks(Files.readString(thread.resolve("stat")));
        } catch (IOException | RuntimeException gone) {
            return 0; // the thread ended between the listing and the read
        }
    }

    /** utime + stime of a {@code stat} line, counted after the command name's ')' (it may hold spaces). */
    private static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
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
