package dev.hourglass.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code pull} workload: pull consumers (docs/api.md, "Pull consumers") on PULL services of
 * their own, in two parts, each on a fresh service.
 *
 * <ul>
 *   <li><b>throughput</b>: {@code --jobs} (30,000) jobs all due at one millisecond are submitted in
 *       batches and seen ready in the queue before the clock starts; then {@code --consumers} (8)
 *       consumers reserve {@code --batch} (50) at a time and acknowledge each batch with one POST
 *       /api/v1/results until every job is acknowledged, or for {@code --drain-timeout-seconds}
 *       (120). Reported: jobs/s, the latency of the reserve calls that brought jobs and of the
 *       results calls, and the CPU of node and database per job during the drain (and during the
 *       pre-fill apart).
 *   <li><b>steady</b>: the consumers long-poll (max {@code --batch}, waitMs 20,000) while single
 *       jobs are submitted at {@code --rate} (500/s) for {@code --seconds} (30), each due {@code
 *       --delay-ms} (3,000) later. The lateness of a job is when its consumer held it (the client's
 *       clock when the reserve answer was read) minus its fireAt — one machine, one clock. Reported
 *       with the jobs reserved early, never reserved by the last fire time + 10 s (missed), and
 *       reserved more than once (duplicated); and split by path: {@code latenessSameNodeMs} for the
 *       jobs reserved through the node they were submitted through, {@code latenessOtherNodeMs}
 *       for those reserved through another node, each with its {@code count} and the percentiles
 *       of {@code latenessMs} ({@link PullTally}: with one node the other-node split has count 0
 *       and null percentiles). The requirement they check: a job reaches a consumer waiting on its
 *       submit node within 20 ms, on any other node within 200 ms (p99 at 500 jobs/s). Beside them,
 *       {@code nodeHandOut}: the nodes' own figure, the share of reservations they answered within
 *       1, 5, 10, 25, 50, 100 ms of the due time (their hand-out lateness metric); the rest of the
 *       consumers' lateness is the answer's way to them.
 * </ul>
 *
 * Each consumer acknowledges from a results thread of its own ({@code --acks background}, as the
 * SDK's {@code PullConsumer} does), or itself before it reserves again ({@code --acks inline}):
 * then it is not waiting while its acknowledgement commits, and a job due meanwhile waits for it.
 *
 * <p>{@code --part throughput|steady|both} (both) picks them. Unless {@code --warmup-seconds 0}, both
 * run first, smaller, on services of their own, the steady part again until the nodes' JIT is quiet
 * ({@link #warmUp}), and their figures are dropped: a cold node spends its CPU compiling. Each
 * part reports the cores the nodes' JIT compilers took during it ({@code nodeJitCores}).
 */
final class PullBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Long enough that no reservation lapses within a run: a lapse would be reserved again. */
    private static final long TTR_MS = 60_000;
    /** A node whose JIT compilers take less than this share of a core is warm. */
    private static final double QUIET_JIT_CORES_PER_NODE = 0.05;

    private final List<NodeApi> apis;
    private final List<String> nodeUrls;
    private final String token;
    private final JobSubmitter submitter;
    private final Map<String, String> opts;
    private final int consumers;
    /** Jobs each reserve asks for (--batch, 50), and so each results call acknowledges at most. */
    private final int batch;
    /** Who acknowledges (--acks background|inline): {@link PullConsumerGroup.Acks}. */
    private final PullConsumerGroup.Acks acks;

    private final ProcessCpu nodeCpu;
    private final ProcessCpu dbCpu;
    private final ProcessCpu clientCpu =
            new ProcessCpu(Long.toString(ProcessHandle.current().pid()));
    private final InnoDbDeadlocks deadlocks;

    PullBench(
            List<NodeApi> apis, List<String> nodeUrls, String token, JobSubmitter submitter, Map<String, String> opts) {
        this.apis = apis;
        this.nodeUrls = nodeUrls;
        this.token = token;
        this.submitter = submitter;
        this.opts = opts;
        this.consumers = (int) opt("consumers", 8);
        this.batch = (int) opt("batch", 50);
        this.acks = PullConsumerGroup.Acks.valueOf(
                opts.getOrDefault("acks", "background").toUpperCase(Locale.ROOT));
        this.nodeCpu = new ProcessCpu(opts.get("cpu-node"));
        this.dbCpu = new ProcessCpu(opts.get("cpu-db"));
        this.deadlocks = new InnoDbDeadlocks(opts.get("jdbc"));
    }

    ObjectNode run() {
        String part = opts.getOrDefault("part", "both");
        if (!Set.of("both", "throughput", "steady").contains(part)) {
            throw new IllegalArgumentException("--part is throughput, steady or both, not " + part);
        }
        int jobs = (int) opt("jobs", 30_000);
        int rate = (int) opt("rate", 500);
        int seconds = (int) opt("seconds", 30);
        long delayMs = opt("delay-ms", 3_000);
        long warmupSeconds = opt("warmup-seconds", 20);
        if (warmupSeconds > 0) {
            warmUp(Math.min(jobs, 10_000), rate, (int) Math.max(5, warmupSeconds / 2));
        }
        ObjectNode out = JSON.createObjectNode();
        out.put("workload", "pull");
        out.put("part", part);
        out.put("nodes", apis.size());
        out.put("consumers", consumers);
        out.put("batch", batch);
        out.put("acks", acks.name().toLowerCase(Locale.ROOT));
        if (!part.equals("steady")) {
            ObjectNode t = throughput("pull-throughput", jobs);
            out.set("throughput", t);
            System.err.printf(
                    "pull throughput: %s jobs/s (%s jobs in %s ms); reserve p50 %s p99 %s ms; results p50 %s p99 %s ms;"
                            + " CPU ms/job node %s database %s%n",
                    t.path("jobsPerSec"),
                    t.path("acknowledged"),
                    t.path("drainMs"),
                    t.path("reserveLatencyMs").path("p50"),
                    t.path("reserveLatencyMs").path("p99"),
                    t.path("resultsLatencyMs").path("p50"),
                    t.path("resultsLatencyMs").path("p99"),
                    t.path("cpuSecondsPer1000Jobs").path("node"),
                    t.path("cpuSecondsPer1000Jobs").path("database"));
        }
        if (!part.equals("throughput")) {
            ObjectNode s = steady("pull-steady", rate, seconds, delayMs);
            out.set("steady", s);
            JsonNode late = s.path("latenessMs");
            System.err.printf(
                    "pull steady: lateness p50 %s p99 %s p99.9 %s max %s ms (same node: %s; other node: %s);"
                            + " the nodes answered %s within 10 ms of the due time; early %s, missed %s, duplicated %s"
                            + " of %s%n",
                    late.path("p50"),
                    late.path("p99"),
                    late.path("p999"),
                    late.path("max"),
                    splitSummary(s.path("latenessSameNodeMs")),
                    splitSummary(s.path("latenessOtherNodeMs")),
                    percent(s.path("nodeHandOut").path("shareWithinMs").path("10")),
                    s.path("early"),
                    s.path("missed"),
                    s.path("duplicated"),
                    s.path("submitted"));
        }
        long[] heap = apis.get(0).heap();
        out.put("nodeHeapLiveBytes", heap[0]);
        out.put("nodeHeapUsedBytes", heap[1]);
        return out;
    }

    /**
     * A drain of {@code jobs}, then steady parts of {@code chunkSeconds} at {@code rate} until the
     * nodes' JIT compilers are quiet: under 0.05 of a core per node on average over a whole part,
     * or after {@code --warmup-max-seconds} (240) of steady parts (always, when the nodes' pids are
     * not given: nothing to measure). The compiler threads' CPU is summed over those alive at each
     * reading; HotSpot ends idle extra ones on machines with more cores, so there it reads low. A
     * fixed 10 s left a node compiling at a third of
     * a core through the measured minute (the C2 compiler quiets after 1-2 minutes of this load
     * here): that measured how the node starts, and took the CPU the lateness is measured on. The
     * figures of the warm-up are dropped; each part's JIT share is printed.
     */
    private void warmUp(int jobs, int rate, int chunkSeconds) {
        ObjectNode drain = throughput("pull-warm-throughput", jobs);
        System.err.printf("warm-up drain: %s jobs/s%n", drain.path("jobsPerSec"));
        long maxMs = opt("warmup-max-seconds", 240) * 1_000;
        long start = System.currentTimeMillis();
        for (int part = 1; ; part++) {
            ObjectNode warm = steady("pull-warm-steady-" + part, rate, chunkSeconds, 1_000);
            JsonNode jit = warm.path("cpuSecondsPer1000Jobs").path("nodeJitCores");
            System.err.printf(
                    "warm-up steady %d: lateness p99 %s ms, node JIT %s cores%n",
                    part, warm.path("latenessMs").path("p99"), jit.isMissingNode() ? "(not measured)" : jit);
            // the nodes' JIT over all of them, against the bound per node times their number
            if (!jit.isMissingNode() && jit.asDouble() < QUIET_JIT_CORES_PER_NODE * Math.max(1, apis.size())) {
                return;
            }
            if (System.currentTimeMillis() - start >= maxMs) {
                System.err.printf("warm-up: the JIT still busy after %d s; measuring anyway%n", maxMs / 1_000);
                return;
            }
        }
    }

    /**
     * Pre-fills {@code jobs} ready jobs, sees them all ready, then times the consumers draining
     * them. The clock stops when the last of them is acknowledged.
     */
    private ObjectNode throughput(String service, int jobs) {
        createService(service);
        long deadlocksBefore = deadlocks.count();
        double[] beforeFill = cpu();
        long filling = System.nanoTime();
        long dueAt = System.currentTimeMillis();
        submitter.batches(service, jobs, i -> dueAt);
        long fillMs = (System.nanoTime() - filling) / 1_000_000;
        long ready = awaitReady(service, jobs, 60_000);

        PullTally tally = new PullTally();
        PullConsumerGroup group = new PullConsumerGroup(
                nodeUrls,
                token,
                consumers,
                new PullConsumerGroup.Reserve(service, batch, TTR_MS, 1_000),
                tally,
                () -> tally.acknowledged() >= jobs || (tally.distinctReserved() >= jobs && tally.allAnswered()),
                opt("drain-timeout-seconds", 120),
                jobs + 10_000L,
                acks);
        double[] beforeDrain = cpu();
        long start = System.nanoTime();
        group.start();
        boolean drained = group.awaitDone(opt("drain-timeout-seconds", 120) * 1_000);
        long end = drained ? group.doneAtNanos() : System.nanoTime();
        double[] afterDrain = cpu();
        group.stop();

        ObjectNode out = JSON.createObjectNode();
        out.put("service", service);
        out.put("jobs", jobs);
        out.put("prefillMs", fillMs);
        out.put("prefillRatePerSec", Math.round(jobs * 1_000.0 / Math.max(1, fillMs)));
        out.put("readyAtStart", ready);
        out.put("drained", drained);
        long drainMs = Math.max(1, (end - start) / 1_000_000);
        out.put("drainMs", drainMs);
        out.put("jobsPerSec", Math.round(tally.acknowledged() * 1_000.0 / drainMs));
        out.setAll(tally.report(JSON, false, true));
        out.put("missed", Math.max(0, jobs - tally.distinctReserved()));
        out.set("cpuSecondsPer1000Jobs", cpuPer1000(beforeDrain, afterDrain, jobs));
        out.set("prefillCpuSecondsPer1000Jobs", cpuPer1000(beforeFill, beforeDrain, jobs));
        out.set("queueAfter", queue(service));
        databaseDeadlocks(out, deadlocksBefore);
        return out;
    }

    /**
     * Consumers waiting in long polls while jobs are submitted at {@code rate}/s, each due {@code
     * delayMs} later; ends when every accepted job is reserved and acknowledged, or 10 s after the
     * last one was due.
     */
    private ObjectNode steady(String service, int rate, int seconds, long delayMs) {
        createService(service);
        long deadlocksBefore = deadlocks.count();
        PullTally tally = new PullTally();
        // every accepted job: the node URL it was submitted through
        Map<String, String> submittedThrough = new ConcurrentHashMap<>();
        Set<String> accepted = submittedThrough.keySet();
        AtomicBoolean submitted = new AtomicBoolean();
        long lastDueBound = seconds + delayMs / 1_000 + 10;
        PullConsumerGroup group = new PullConsumerGroup(
                nodeUrls,
                token,
                consumers,
                new PullConsumerGroup.Reserve(service, batch, TTR_MS, 20_000),
                tally,
                () -> submitted.get() && tally.distinctReserved() >= accepted.size() && tally.allAnswered(),
                lastDueBound + 120, // a bound only: the wait below ends it
                (long) rate * seconds + 10_000L,
                acks);
        group.start();
        sleep(1_000); // every consumer in its long poll before the first job
        double[] before = cpu();
        JobSubmitter.Paced paced = submitter.paced(
                service, rate, rate * seconds, delayMs, (node, body) -> submittedThrough.put(idOf(body), node));
        submitted.set(true);
        boolean complete = group.awaitDone(delayMs + 10_000);
        double[] after = cpu();
        group.stop();

        ObjectNode out = JSON.createObjectNode();
        out.put("service", service);
        out.put("ratePerSec", rate);
        out.put("seconds", seconds);
        out.put("delayMs", delayMs);
        out.put("submitted", accepted.size());
        out.put("submitFailed", paced.failed());
        out.put("submitRatePerSec", Math.round(paced.ratePerSec()));
        out.put("complete", complete);
        out.setAll(tally.report(JSON, true, false, submittedThrough));
        out.put("missed", tally.missed(accepted));
        out.put("reservedNotSubmitted", tally.unexpected(accepted));
        out.set("cpuSecondsPer1000Jobs", cpuPer1000(before, after, Math.max(1, accepted.size())));
        out.set("nodeHandOut", nodeHandOut(service));
        out.set("queueAfter", queue(service));
        databaseDeadlocks(out, deadlocksBefore);
        return out;
    }

    /**
     * The nodes' side of the lateness (their metric {@code hourglass_pull_handout_lateness_seconds}
     * of the part's own service, summed over the nodes): reservations answered ({@code count}) and
     * the share of them answered within each bucket bound after the job was due ({@code
     * shareWithinMs}). What the consumers' lateness adds to it is the answer's way to them.
     */
    private ObjectNode nodeHandOut(String service) {
        TreeMap<Long, Long> within = new TreeMap<>();
        for (NodeApi api : apis) {
            api.handOutLateness(service).forEach((ms, n) -> within.merge(ms, n, Long::sum));
        }
        ObjectNode out = JSON.createObjectNode();
        long count = within.getOrDefault(Long.MAX_VALUE, 0L);
        out.put("count", count);
        ObjectNode share = out.putObject("shareWithinMs");
        within.headMap(100L, true)
                .forEach((ms, n) -> share.put(Long.toString(ms), count == 0 ? null : (double) n / count));
        return out;
    }

    /** The deadlocks the database detected during a part; the latest told on stderr. */
    private void databaseDeadlocks(ObjectNode out, long before) {
        long now = deadlocks.count();
        if (before < 0 || now < 0) {
            return;
        }
        out.put("databaseDeadlocks", now - before);
        if (now > before) {
            System.err.println(out.path("service").asText() + ": " + (now - before) + " deadlocks; the latest:\n"
                    + deadlocks.latest());
        }
    }

    private void createService(String service) {
        apis.get(0).call("PUT", "/api/v1/services/" + service, token, "{\"protocol\":\"PULL\",\"maxInFlight\":100000}");
    }

    /** Polls the service's queue until {@code jobs} are ready or {@code maxMs} passed; returns the last count. */
    private long awaitReady(String service, int jobs, long maxMs) {
        long until = System.currentTimeMillis() + maxMs;
        long ready = queue(service).path("ready").asLong();
        while (ready < jobs && System.currentTimeMillis() < until) {
            sleep(100);
            ready = queue(service).path("ready").asLong();
        }
        if (ready < jobs) {
            System.err.printf("%s: only %,d of %,d jobs ready after %,d ms%n", service, ready, jobs, maxMs);
        }
        return ready;
    }

    private ObjectNode queue(String service) {
        return (ObjectNode) apis.get(0).call("GET", "/api/v1/services/" + service + "/queue", token, null);
    }

    /** A share as a percentage with two decimals, or "?" without one. */
    static String percent(JsonNode share) {
        return share.isNumber() ? String.format(Locale.ROOT, "%.2f %%", 100 * share.asDouble()) : "?";
    }

    /**
     * One lateness split of the steady part for the summary line: {@code n 1234 p50 4 p99 9 p99.9
     * 12 max 15 ms}, or {@code n 0} for a split without jobs (its percentiles are null).
     */
    static String splitSummary(JsonNode split) {
        long count = split.path("count").asLong();
        if (count == 0) {
            return "n 0";
        }
        return "n " + count + " p50 " + split.path("p50") + " p99 " + split.path("p99") + " p99.9 " + split.path("p999")
                + " max " + split.path("max") + " ms";
    }

    /** The job id of a submit's answer (the Job, whose first field is its id), read without parsing. */
    static String idOf(String jobJson) {
        String marker = "\"id\":\"";
        int start = jobJson.indexOf(marker) + marker.length();
        return jobJson.substring(start, jobJson.indexOf('"', start));
    }

    /** CPU seconds so far: node, database, this client, the whole machine; the time (s); the node's JIT. */
    private double[] cpu() {
        return new double[] {
            nodeCpu.seconds(),
            dbCpu.seconds(),
            clientCpu.seconds(),
            ProcessCpu.machineBusySeconds(),
            System.nanoTime() / 1e9,
            nodeCpu.compilerSeconds()
        };
    }

    /** CPU seconds per 1,000 jobs (= ms per job) between two readings, as the other workloads report it. */
    private ObjectNode cpuPer1000(double[] before, double[] after, long jobs) {
        ObjectNode cpu = JSON.createObjectNode();
        double node = after[0] - before[0];
        double db = after[1] - before[1];
        cpu.put("node", Math.round(node * 1_000_000 / jobs) / 1_000.0);
        cpu.put("database", Math.round(db * 1_000_000 / jobs) / 1_000.0);
        cpu.put("both", Math.round((node + db) * 1_000_000 / jobs) / 1_000.0);
        double client = after[2] - before[2];
        cpu.put("client", Math.round(client * 1_000_000 / jobs) / 1_000.0);
        // on a shared machine: the cores that other processes (not node, database, client) kept busy
        double others = after[3] - before[3] - node - db - client;
        double seconds = after[4] - before[4];
        cpu.put("otherProcessesCores", Math.round(Math.max(0, others) / seconds * 100) / 100.0);
        // the nodes' JIT compilers, included in "node": near 0 on a warm node. Absent without the
        // nodes' pids; at least 0 (a compiler thread HotSpot ends takes its time with it)
        if (!nodeCpu.isEmpty()) {
            double jit = Math.max(0, after[5] - before[5]);
            cpu.put("nodeJitCores", Math.round(jit / seconds * 100) / 100.0);
        }
        return cpu;
    }

    private long opt(String name, long dflt) {
        return LoadBench.opt(opts, name, dflt);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
