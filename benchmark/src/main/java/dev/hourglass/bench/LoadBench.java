package dev.hourglass.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.sdk.dubbo.CallbackExporter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Drives a running node through its HTTP API with a local callback receiver and prints one JSON
 * object of results. Every loop is bounded in count and time; all traffic goes to the node's URL
 * (give a loopback one) and to the receiver on 127.0.0.1.
 *
 * <pre>
 * LoadBench --node http://127.0.0.1:8080 --admin TOKEN --workload burst   [--jobs 20000] [--spread-ms 1000: 0 = all due at one millisecond]
 * LoadBench --node ... --admin ... --workload steady  [--rate 500] [--seconds 60] [--delay-ms 5000]
 *           (a cold node with a warm generator: --warmup-seconds 0 --warm-generator-seconds 20)
 * LoadBench --node ... --admin ... --workload pending [--pending 1000000] [--rate 500] [--seconds 60]
 * LoadBench --node ... --admin ... --workload stats   [--pending 10000000] --jdbc URL
 * LoadBench --node ... --admin ... --workload submit  [--clients 16] [--seconds 20] [--delay-ms 600000]
 * LoadBench --node ... --admin ... --workload pull    [--part both|throughput|steady] [--jobs 30000]
 *           [--rate 500] [--seconds 30] [--delay-ms 3000] [--consumers 8] [--batch 50]
 *           [--warmup-max-seconds 240: steady warm-up parts until the node's JIT is quiet] (PullBench)
 * LoadBench --node ... --admin ... --workload schedules [--schedules 100000] [--seconds 60] --jdbc URL
 * </pre>
 */
public final class LoadBench {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final NodeApi api;
    /** Every node given with --node (comma-separated): submits rotate over them. */
    private final List<NodeApi> apis = new ArrayList<>();

    private final List<String> nodeUrls = new ArrayList<>();
    private final Map<String, String> opts;
    private final CallbackSink sink;
    private String token;
    private JobSubmitter submitter;
    private final String service = "bench";
    private KafkaSink kafkaSink;
    private CallbackExporter dubboSink;

    private LoadBench(Map<String, String> opts) throws Exception {
        this.opts = opts;
        for (String url : opts.getOrDefault("node", "http://127.0.0.1:8080").split(",")) {
            apis.add(new NodeApi(url.trim()));
            nodeUrls.add(url.trim());
        }
        this.api = apis.get(0);
        this.sink = new CallbackSink();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        LoadBench bench = new LoadBench(opts);
        try {
            ObjectNode result = bench.run();
            System.out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(result));
        } finally {
            if (bench.kafkaSink != null) {
                bench.kafkaSink.close();
            }
            if (bench.dubboSink != null) {
                bench.dubboSink.close();
            }
            bench.sink.close();
        }
        System.exit(0);
    }

    private long opt(String name, long dflt) {
        return opt(opts, name, dflt);
    }

    /** The numeric option {@code --name}, or {@code dflt} when not given. */
    static long opt(Map<String, String> opts, String name, long dflt) {
        return Long.parseLong(opts.getOrDefault(name, Long.toString(dflt)));
    }

    private ObjectNode run() {
        String admin = opts.get("admin");
        String app = "bench" + System.currentTimeMillis() % 10_000_000;
        token = api.call("POST", "/api/v1/apps", admin, "{\"name\":\"" + app + "\"}")
                .get("token")
                .asText();
        submitter = new JobSubmitter(apis, nodeUrls, token);
        String workload = opts.getOrDefault("workload", "burst");
        if (workload.equals("pull")) { // its own services, warm-up and CPU readings
            return new PullBench(apis, nodeUrls, token, submitter, opts).run();
        }
        String kafka = opts.get("kafka");
        boolean dubbo = "1".equals(opts.get("dubbo"));
        String target = kafka != null
                ? "\"protocol\":\"KAFKA\",\"topic\":\"" + app + "\""
                : "\"protocol\":\"HTTP\",\"url\":\"" + sink.url() + "\"";
        if (dubbo) {
            // the business's JobCallbackService, exported with the SDK; arrivals go to the same counters
            dubboSink = CallbackExporter.of(request -> {
                        sink.arrived(
                                request.getJobId(), request.getFireAt().toEpochMilli(), System.currentTimeMillis());
                        return CallbackResult.success();
                    })
                    .host("127.0.0.1")
                    .port(Integer.parseInt(opts.getOrDefault("dubbo-port", "20990")))
                    .start();
            target = "\"protocol\":\"DUBBO\",\"url\":\"" + dubboSink.url() + "\"";
        }
        if (kafka != null) {
            try {
                kafkaSink = new KafkaSink(kafka, app, sink); // records go to the same counters
            } catch (Exception e) {
                throw new IllegalStateException("cannot consume from Kafka at " + kafka, e);
            }
        }
        api.call(
                "PUT",
                "/api/v1/services/" + service,
                token,
                "{" + target + ",\"maxInFlight\":"
                        + opts.getOrDefault("max-in-flight", kafka == null ? "256" : "20000")
                        + ",\"timeoutMs\":30000,\"maxAttempts\":3}");
        if (workload.equals("submit")) { // warms up with its own kind of load
            return submit((int) opt("clients", 16), (int) opt("seconds", 20), opt("delay-ms", 600_000));
        }
        warmGeneratorOnly(opt("warm-generator-seconds", 0));
        warmUp();
        ProcessCpu nodeCpu = new ProcessCpu(opts.get("cpu-node"));
        ProcessCpu dbCpu = new ProcessCpu(opts.get("cpu-db"));
        double nodeBefore = nodeCpu.seconds();
        double dbBefore = dbCpu.seconds();
        ObjectNode out =
                switch (workload) {
                    case "burst" -> burst((int) opt("jobs", 20_000), opt("spread-ms", 1_000));
                    case "steady" -> steady((int) opt("rate", 500), (int) opt("seconds", 60), opt("delay-ms", 5_000));
                    case "pending" ->
                        pending(app, (int) opt("pending", 1_000_000), (int) opt("rate", 500), (int) opt("seconds", 60));
                    case "stats" -> stats(app, (int) opt("pending", 10_000_000));
                    case "schedules" -> schedules(app, (int) opt("schedules", 100_000), (int) opt("seconds", 60));
                    default ->
                        throw new IllegalArgumentException(
                                "workload is burst, steady, pending, stats, schedules, submit or pull");
                };
        if (!nodeCpu.isEmpty() && (workload.equals("steady") || workload.equals("burst"))) {
            // the whole life of the run's jobs: submits, claims, sends, results, and the idle cost meanwhile
            double node = nodeCpu.seconds() - nodeBefore;
            double db = dbCpu.seconds() - dbBefore;
            long jobs = out.path("jobs").asLong(1);
            ObjectNode cpu = out.putObject("cpuSecondsPer1000Jobs");
            cpu.put("node", Math.round(node * 1_000_000 / jobs) / 1_000.0);
            cpu.put("database", Math.round(db * 1_000_000 / jobs) / 1_000.0);
            cpu.put("both", Math.round((node + db) * 1_000_000 / jobs) / 1_000.0);
        }
        return out;
    }

    /**
     * A node measured cold spends most of its CPU in the JIT compiler (seen with async-profiler:
     * half the CPU of a 20 s run on 2 cores). Production nodes run warm, so every workload is
     * preceded by a short load of the same kind whose results are discarded.
     */
    private void warmUp() {
        long seconds = opt("warmup-seconds", 20);
        if (seconds <= 0) {
            return;
        }
        int rate = 500;
        int jobs = (int) (rate * seconds);
        submitter.paced(service, rate, jobs, 1_000, null);
        awaitDeliveries(jobs, System.currentTimeMillis() + 30_000);
        long firstFireAt = System.currentTimeMillis() + 3_000;
        submitter.batches(service, 5_000, i -> firstFireAt + (i * 1_000L) / 5_000);
        awaitDeliveries(jobs + 5_000, firstFireAt + 60_000); // and their results written
        sink.reset();
        baseline = outcomes();
    }

    private ObjectNode baseline;

    /**
     * For measuring a cold node with a warm generator (--warm-generator-seconds N with
     * --warmup-seconds 0): the submit client and the receiver exchange N seconds of posts shaped as
     * callbacks at 500/s between themselves, so that their compiled code is ready, while the node,
     * which none of this reaches, stays as cold as it started. A business service whose node is
     * restarted in a rolling upgrade is warm.
     */
    private void warmGeneratorOnly(long seconds) {
        if (seconds <= 0) {
            return;
        }
        int rate = 500;
        int posts = (int) (rate * seconds);
        int senders = 64;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(senders);
        SubmitClient http = new SubmitClient(senders);
        long start = System.nanoTime();
        for (int i = 0; i < posts; i++) {
            long wait = start + (long) i * 1_000_000_000L / rate - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            String body = "{\"jobId\":\"warm-" + i + "\",\"fireAt\":\""
                    + java.time.Instant.ofEpochMilli(System.currentTimeMillis()) + "\"}";
            pool.execute(() -> {
                try {
                    http.post(sink.url(), "warm-up", body);
                } catch (java.io.IOException | RuntimeException e) {
                    // a warm-up post lost changes nothing measured
                }
            });
        }
        pool.shutdown();
        try {
            if (!pool.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS)) {
                pool.shutdownNow();
            }
            http.close();
        } catch (InterruptedException | java.io.IOException e) {
            Thread.currentThread().interrupt();
        }
        System.err.printf("generator warmed for %d s: %d posts received%n", seconds, sink.deliveries.size());
        sink.reset();
    }

    /**
     * N jobs due within {@code spreadMs} (one second by default; 0: all at the same millisecond),
     * submitted ahead of time in batches of 1,000.
     */
    private ObjectNode burst(int jobs, long spreadMs) {
        long lead = opt("lead-ms", 15_000);
        long firstFireAt = System.currentTimeMillis() + lead;
        long started = System.currentTimeMillis();
        submitter.batches(service, jobs, i -> firstFireAt + (i * spreadMs) / jobs);
        long submitMs = System.currentTimeMillis() - started;
        double[] claimsBefore = claimSums();
        awaitDeliveries(jobs, firstFireAt + 1_000 + 120_000);
        double[] claimsAfter = claimSums();
        ObjectNode out = report("burst", jobs, jobs * 1_000.0 / Math.max(1, submitMs));
        ObjectNode claims = out.putObject("nodeClaims");
        double transactions = claimsAfter[0] - claimsBefore[0];
        claims.put("transactions", Math.round(transactions));
        claims.put("jobs", Math.round(claimsAfter[2] - claimsBefore[2]));
        claims.put("secondsInClaims", Math.round((claimsAfter[1] - claimsBefore[1]) * 1_000) / 1_000.0);
        claims.put(
                "msPerTransaction",
                transactions == 0
                        ? 0
                        : Math.round((claimsAfter[1] - claimsBefore[1]) * 1_000_000 / transactions) / 1_000.0);
        out.put("dueWithinMs", spreadMs);
        long span = sink.lastArrival.get() - firstFireAt;
        out.put("fireSpanMs", span);
        out.put("fireThroughputPerSec", Math.round(sink.deliveries.size() * 1_000.0 / Math.max(1_000, span)));
        return out;
    }

    /** Single submits at a fixed rate, each due delayMs later. */
    private ObjectNode steady(int rate, int seconds, long delayMs) {
        int jobs = rate * seconds;
        double submitRate = submitter.paced(service, rate, jobs, delayMs, null).ratePerSec();
        awaitDeliveries(jobs, System.currentTimeMillis() + delayMs + 60_000);
        ObjectNode out = report("steady", jobs, submitRate);
        out.put("ratePerSec", rate);
        out.put("delayMs", delayMs);
        out.put(
                "fireThroughputPerSec",
                Math.round(sink.deliveries.size()
                        * 1_000.0
                        / Math.max(1, sink.lastArrival.get() - sink.firstArrival.get())));
        return out;
    }

    /**
     * Many jobs due far ahead (they must stay out of memory), then the steady load. With --jdbc
     * (benchmark/run.sh passes it) also the plans of the firing engine's reads with them in the
     * table, and the dashboard's lists.
     */
    private ObjectNode pending(String app, int pending, int rate, int seconds) {
        long[] before = api.heap();
        long started = System.currentTimeMillis();
        long farAway = System.currentTimeMillis() + 86_400_000L;
        submitter.batches(service, pending, i -> farAway + i % 3_600_000);
        long loadMs = System.currentTimeMillis() - started;
        System.err.printf("submitted %,d pending jobs in %,d ms%n", pending, loadMs);
        sleep(5_000);
        ObjectNode stats = statsLatency(100);
        ObjectNode plans = opts.containsKey("jdbc") ? explainEngineReads() : null;
        ObjectNode lists = opts.containsKey("jdbc") ? listLatency(app, farAway) : null;
        long[] afterLoad = api.heap();
        ObjectNode out = steady(rate, seconds, opt("delay-ms", 5_000));
        long[] after = api.heap();
        out.put("workload", "pending+steady");
        out.put("pendingJobs", pending);
        out.put("pendingSubmitRatePerSec", Math.round(pending * 1_000.0 / Math.max(1, loadMs)));
        out.set("statsWithPendingMs", stats);
        if (plans != null) {
            out.set("engineReadPlans", plans);
            out.set("listsWithPendingMs", lists);
        }
        ObjectNode heap = out.putObject("nodeHeapBytes");
        heap.put("liveBeforePending", before[0]);
        heap.put("liveAfterPending", afterLoad[0]);
        heap.put("liveAfterSteady", after[0]);
        heap.put("usedAfterSteady", after[1]);
        return out;
    }

    /**
     * Schedules at scale: {@code schedules} daily schedules written straight into {@code hg_schedule}
     * (their occurrences spread over the next 24 h, so about one a second comes due: the owner's
     * pass submits it), then one schedule firing every second ({@code every: PT1S}) put through the
     * API and run for {@code seconds}. Reports the lateness of every job that arrived (the
     * every-second one's and the daily ones' that came due), how many, and the node's and the
     * database's CPU per minute: run with 0 and with 100,000 schedules, on the same build, to see
     * what the schedules cost the node.
     */
    private ObjectNode schedules(String app, int schedules, int seconds) {
        String jdbc = opts.get("jdbc");
        if (jdbc == null) {
            throw new IllegalArgumentException("the schedules workload needs --jdbc (benchmark/run.sh passes it)");
        }
        long now = System.currentTimeMillis();
        long loadStarted = now;
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbc, "root", "");
                java.sql.Statement st = c.createStatement()) {
            st.execute("SET SESSION max_recursive_iterations = 1000001");
            if (schedules > 0) {
                // daily (every 86,400,000 ms) from a start spread over the next day; the pass that
                // submits an occurrence comes 30 s before it, as the node would have planned
                st.executeUpdate(
                        "INSERT INTO hg_schedule (app, name, shard, service, cron, every_ms, time_zone, payload,"
                                + " attributes, start_at, end_at, misfire, catch_up_window_ms, overlap, paused, paused_at,"
                                + " max_attempts, timeout_ms, expire_after_ms, generation, cursor_at, next_check_at,"
                                + " last_occurrence_at, last_job_id, created_at, updated_at)"
                                + " SELECT '" + app + "', CONCAT('daily-', s.n), s.n % 64, '" + service
                                + "', NULL, 86400000,"
                                + " 'UTC', '{\"n\":1}', NULL, " + (now + 60_000) + " + (s.n * 86400000 DIV " + schedules
                                + "), NULL, 'FIRE_ONCE', 3600000, 'ALLOW', 0, NULL, NULL, NULL, NULL, " + now + ", "
                                + now
                                + ", " + (now + 30_000) + " + (s.n * 86400000 DIV " + schedules + "), NULL, NULL, "
                                + now
                                + ", " + now
                                + " FROM (WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < "
                                + (schedules - 1) + ") SELECT n FROM s) s");
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("schedules not written: " + e.getMessage(), e);
        }
        long loadMs = System.currentTimeMillis() - loadStarted;
        System.err.printf("wrote %,d schedules in %,d ms%n", schedules, loadMs);
        sleep(5_000); // the node's first runs over them
        sink.reset();
        ProcessCpu nodeCpu = new ProcessCpu(opts.get("cpu-node"));
        ProcessCpu dbCpu = new ProcessCpu(opts.get("cpu-db"));
        double nodeBefore = nodeCpu.seconds();
        double dbBefore = dbCpu.seconds();
        long started = System.currentTimeMillis();
        api.call("PUT", "/api/v1/schedules/tick", token, "{\"service\":\"" + service + "\",\"every\":\"PT1S\"}");
        sleep(seconds * 1_000L);
        api.call("POST", "/api/v1/schedules/tick/pause", token, "");
        long ran = System.currentTimeMillis() - started;
        double node = nodeCpu.seconds() - nodeBefore;
        double db = dbCpu.seconds() - dbBefore;
        sleep(2_000); // the last ones under way arrive
        ObjectNode out = report("schedules", sink.deliveries.size(), 0);
        out.put("schedules", schedules);
        out.put("schedulesWrittenMs", loadMs);
        out.put("seconds", seconds);
        ObjectNode cpu = out.putObject("cpuSecondsPerMinute");
        cpu.put("node", Math.round(node * 60_000_000 / ran) / 1_000.0);
        cpu.put("database", Math.round(db * 60_000_000 / ran) / 1_000.0);
        out.put("early", sink.early.get());
        return out;
    }

    /**
     * The stats read at a size the API would take long to submit: {@code pending} jobs due a day
     * or more ahead, written straight into the live table in chunks of a million (with the
     * live-count delta the node's own inserts write), then {@link #statsLatency}.
     */
    private ObjectNode stats(String app, int pending) {
        String jdbc = opts.get("jdbc");
        if (jdbc == null) {
            throw new IllegalArgumentException("the stats workload needs --jdbc (benchmark/run.sh passes it)");
        }
        long far = System.currentTimeMillis() + 86_400_000L;
        long started = System.currentTimeMillis();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbc, "root", "");
                java.sql.Statement st = c.createStatement()) {
            st.execute("SET SESSION max_recursive_iterations = 1000001");
            for (int done = 0; done < pending; done += 1_000_000) {
                int chunk = Math.min(1_000_000, pending - done);
                st.executeUpdate("INSERT INTO job_delay_task (id, app, service, shard, state, fire_at, due_at,"
                        + " attempts, budget_base, max_attempts, timeout_ms, payload, version, created_at, updated_at)"
                        + " SELECT " + (8_000_000_000L + done) + " + s.n, '" + app + "', '" + service
                        + "', s.n % 64, 'DELAYED', " + far + " + s.n % 3600000, " + far + " + s.n % 3600000,"
                        + " 0, 0, 3, 30000, '{\"i\":1}', 0, " + started + ", " + started
                        + " FROM (WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < " + chunk
                        + ") SELECT n FROM s) s");
                st.executeUpdate("INSERT INTO hg_live_count_delta (app, service, state, delta) VALUES ('" + app + "', '"
                        + service + "', 'DELAYED', " + chunk + ")");
                System.err.printf("seeded %,d of %,d%n", done + chunk, pending);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("seeding failed", e);
        }
        long seedMs = System.currentTimeMillis() - started;
        sleep(3_000); // a fold or two
        ObjectNode out = JSON.createObjectNode();
        out.put("workload", "stats");
        out.put("pendingJobs", pending);
        out.put("seedMs", seedMs);
        JsonNode live =
                api.call("GET", "/api/v1/stats", opts.get("admin"), null).get("liveByService");
        out.set("liveByService", live);
        out.set("statsMs", statsLatency(200));
        out.set("listsMs", listLatency(app, far));
        out.set("explain", explainSearches(app));
        return out;
    }

    /**
     * The dashboard's lists with the seeded jobs in place, 20 calls each: job searches as the admin
     * and as the seeded app's token with each filter, page 2 by cursor, and a small app's searches
     * (20 jobs among millions: a plan that walks the primary key would read them all), then the
     * other lists the page shows.
     */
    private ObjectNode listLatency(String app, long far) {
        String admin = opts.get("admin");
        String quiet = "quiet" + System.currentTimeMillis() % 10_000_000;
        String quietToken = api.call("POST", "/api/v1/apps", admin, "{\"name\":\"" + quiet + "\"}")
                .get("token")
                .asText();
        api.call("PUT", "/api/v1/services/q", quietToken, "{\"protocol\":\"HTTP\",\"url\":\"" + sink.url() + "\"}");
        for (int i = 0; i < 20; i++) {
            api.call(
                    "POST",
                    "/api/v1/jobs",
                    quietToken,
                    "{\"service\":\"q\",\"fireAt\":" + (far + i) + ",\"bizKey\":\"q-" + i + "\"}");
        }
        String cursor = api.call("GET", "/api/v1/jobs?limit=50", token, null)
                .get("nextCursor")
                .asText();
        String range = "&fireFrom=" + (far + 1_800_000) + "&fireTo=" + (far + 1_860_000);
        Map<String, String[]> calls = new java.util.LinkedHashMap<>();
        calls.put("admin: jobs", new String[] {admin, "/api/v1/jobs?limit=50"});
        calls.put("admin: jobs state=DELAYED", new String[] {admin, "/api/v1/jobs?limit=50&state=DELAYED"});
        calls.put("admin: jobs state=FAILED", new String[] {admin, "/api/v1/jobs?limit=50&state=FAILED"});
        calls.put("app: jobs", new String[] {token, "/api/v1/jobs?limit=50"});
        calls.put("app: jobs page 2", new String[] {token, "/api/v1/jobs?limit=50&cursor=" + cursor});
        calls.put("app: jobs service", new String[] {token, "/api/v1/jobs?limit=50&service=" + service});
        calls.put("app: jobs state=DELAYED", new String[] {token, "/api/v1/jobs?limit=50&state=DELAYED"});
        calls.put("app: jobs state=FAILED", new String[] {token, "/api/v1/jobs?limit=50&state=FAILED"});
        calls.put("app: jobs state=RUNNING (none)", new String[] {token, "/api/v1/jobs?limit=50&state=RUNNING"});
        calls.put("app: jobs fire range 1 min", new String[] {token, "/api/v1/jobs?limit=50" + range});
        calls.put(
                "app: jobs service + fire range",
                new String[] {token, "/api/v1/jobs?limit=50&service=" + service + range});
        calls.put("admin: jobs fire range 1 min", new String[] {admin, "/api/v1/jobs?limit=50" + range});
        calls.put("small app: jobs", new String[] {quietToken, "/api/v1/jobs?limit=50"});
        calls.put("small app: jobs state=DELAYED", new String[] {quietToken, "/api/v1/jobs?limit=50&state=DELAYED"});
        calls.put("small app: jobs bizKey", new String[] {quietToken, "/api/v1/jobs?limit=50&bizKey=q-7"});
        calls.put("admin: services", new String[] {admin, "/api/v1/services"});
        calls.put("admin: alerts FIRING", new String[] {admin, "/api/v1/alerts?state=FIRING&limit=500"});
        calls.put("admin: audit", new String[] {admin, "/api/v1/audit?limit=50"});
        calls.put("admin: stats history", new String[] {admin, "/api/v1/stats/history"});
        calls.put("admin: cluster", new String[] {admin, "/api/v1/cluster"});
        ObjectNode out = JSON.createObjectNode();
        calls.forEach((name, call) -> {
            org.HdrHistogram.Histogram us = new org.HdrHistogram.Histogram(3);
            long deadline = System.currentTimeMillis() + 120_000;
            for (int i = 0; i < 20 && System.currentTimeMillis() < deadline; i++) {
                long t0 = System.nanoTime();
                api.call("GET", call[1], call[0], null);
                us.recordValue(Math.max(1, (System.nanoTime() - t0) / 1_000));
            }
            out.put(
                    name,
                    String.format(
                            "p50 %.1f, max %.1f", us.getValueAtPercentile(50) / 1_000.0, us.getMaxValue() / 1_000.0));
            System.err.printf("%s: %s%n", name, out.get(name).asText());
        });
        return out;
    }

    /**
     * The plans of the firing engine's reads (JobMapper.xml): the loader's window read and the
     * catch-up sweep's (both {@code loadDue}: one part per shard in (due_at, id) order on
     * idx_task_shard_due, pushed jobs only; two shards shown, the node sends one part per owned
     * shard), the timeout sweep
     * and the orphan sweep.
     */
    private ObjectNode explainEngineReads() {
        long now = System.currentTimeMillis();
        String part = "(SELECT id, due_at, app, service, shard FROM job_delay_task WHERE shard = %d"
                + " AND state = 'DELAYED' AND pulled = FALSE AND due_at >= %d AND due_at < %d AND (due_at > %d OR id > 0)"
                + " ORDER BY due_at, id LIMIT 2000)";
        Map<String, String> sql = new java.util.LinkedHashMap<>();
        long loaded = now + 60_000;
        sql.put(
                "loader: next window",
                String.format(part, 0, loaded, now + 120_000, loaded) + " UNION ALL "
                        + String.format(part, 1, loaded, now + 120_000, loaded));
        sql.put(
                "catch-up: due now or soon",
                String.format(part, 0, 0, now + 2_500, 0) + " UNION ALL " + String.format(part, 1, 0, now + 2_500, 0));
        sql.put(
                "timeout sweep",
                "SELECT id FROM job_delay_task WHERE shard IN (0, 1) AND state = 'RUNNING' AND due_at <= " + now
                        + " AND id > 0 ORDER BY id LIMIT 500");
        sql.put(
                "orphan sweep",
                "SELECT id FROM job_delay_task WHERE shard IN (0, 1) AND state = 'RUNNING'"
                        + " AND (owner_node NOT IN ('bench-1') OR (owner_node = 'bench-1' AND updated_at < 0))"
                        + " AND id > 0 ORDER BY id LIMIT 500");
        return explain(sql);
    }

    /** The plans of the job search's statements (JobMapper.searchLive/searchFinal) for each filter. */
    private ObjectNode explainSearches(String app) {
        String cols = "SELECT id FROM ";
        Map<String, String> sql = new java.util.LinkedHashMap<>();
        sql.put("live, no filter", cols + "job_delay_task ORDER BY id LIMIT 51");
        sql.put("live, app", cols + "job_delay_task WHERE app = 'A' ORDER BY id LIMIT 51");
        sql.put("live, app + service", cols + "job_delay_task WHERE app = 'A' AND service = 'S' ORDER BY id LIMIT 51");
        sql.put(
                "live, app + state",
                cols + "job_delay_task WHERE app = 'A' AND state = 'DELAYED' ORDER BY id LIMIT 51");
        sql.put("live, app + bizKey", cols + "job_delay_task WHERE app = 'A' AND biz_key = 'k' ORDER BY id LIMIT 51");
        sql.put(
                "live, app + fire range",
                cols + "job_delay_task WHERE app = 'A' AND fire_at >= 1 AND fire_at < 2 ORDER BY fire_at, id LIMIT 51");
        sql.put(
                "live, app + service + fire range",
                cols + "job_delay_task WHERE app = 'A' AND service = 'S'"
                        + " AND fire_at >= 1 AND fire_at < 2 ORDER BY fire_at, id LIMIT 51");
        sql.put(
                "backlog, app + state",
                cols + "job_delay_task_backlog WHERE app = 'A' AND state = 'FAILED' ORDER BY id LIMIT 51");
        sql.replaceAll((name, q) -> q.replace("'A'", "'" + app + "'").replace("'S'", "'" + service + "'"));
        return explain(sql);
    }

    /** EXPLAIN of each statement (by name), one line per table the plan reads. */
    private ObjectNode explain(Map<String, String> sql) {
        ObjectNode out = JSON.createObjectNode();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(opts.get("jdbc"), "root", "");
                java.sql.Statement st = c.createStatement()) {
            for (Map.Entry<String, String> e : sql.entrySet()) {
                String q = e.getValue();
                StringBuilder plan = new StringBuilder();
                try (java.sql.ResultSet rs = st.executeQuery("EXPLAIN " + q)) {
                    while (rs.next()) {
                        plan.append("type=")
                                .append(rs.getString("type"))
                                .append(" key=")
                                .append(rs.getString("key"))
                                .append(" rows=")
                                .append(rs.getString("rows"))
                                .append(" extra=")
                                .append(rs.getString("Extra"))
                                .append("; ");
                    }
                }
                out.put(e.getKey(), plan.toString());
                System.err.printf("EXPLAIN %s: %s%n", e.getKey(), plan);
            }
        } catch (java.sql.SQLException e) {
            out.put("error", e.toString());
        }
        return out;
    }

    /**
     * GET /api/v1/stats {@code calls} times in a row as the admin (every app's counts): the
     * latencies, and for comparison one full scan of the live table, the query stats ran before it
     * read counters (only with --jdbc, which benchmark/run.sh passes).
     */
    private ObjectNode statsLatency(int calls) {
        org.HdrHistogram.Histogram ms = new org.HdrHistogram.Histogram(3);
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            api.call("GET", "/api/v1/stats", opts.get("admin"), null);
            ms.recordValue(Math.max(1, (System.nanoTime() - t0) / 1_000)); // microseconds
        }
        ObjectNode out = JSON.createObjectNode();
        out.put("calls", calls);
        out.put("p50", ms.getValueAtPercentile(50) / 1_000.0);
        out.put("p99", ms.getValueAtPercentile(99) / 1_000.0);
        out.put("max", ms.getMaxValue() / 1_000.0);
        String jdbc = opts.get("jdbc");
        if (jdbc != null) {
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbc, "root", "");
                    java.sql.Statement st = c.createStatement()) {
                long t0 = System.nanoTime();
                try (java.sql.ResultSet rs = st.executeQuery(
                        "SELECT app, service, state, COUNT(*) FROM job_delay_task GROUP BY app, service, state")) {
                    while (rs.next()) {
                        // read every group, as the stats route did
                    }
                }
                out.put("fullScanGroupByMs", (System.nanoTime() - t0) / 1_000_000);
            } catch (java.sql.SQLException e) {
                out.put("fullScanGroupByError", e.toString());
            }
        }
        return out;
    }

    /**
     * {@code clients} closed-loop clients, each submitting single jobs one after another (the next
     * once the last is acknowledged) for {@code seconds}, after as long a warm-up of the same kind.
     * The jobs are due {@code delayMs} later: by default outside the load window, so that this
     * measures accepting jobs, not firing them.
     */
    private ObjectNode submit(int clients, int seconds, long delayMs) {
        closedLoop(clients, (int) opt("warmup-seconds", 20), delayMs, new ConcurrentHistogram(60_000_000L, 3));
        ConcurrentHistogram micros = new ConcurrentHistogram(60_000_000L, 3);
        long[] counts = closedLoop(clients, seconds, delayMs, micros);
        ObjectNode out = JSON.createObjectNode();
        out.put("workload", "submit");
        out.put("clients", clients);
        out.put("seconds", seconds);
        out.put("acknowledged", counts[0]);
        out.put("failed", counts[1]);
        out.put("acknowledgedPerSec", Math.round(counts[0] / (counts[2] / 1e9)));
        ObjectNode latency = out.putObject("submitLatencyMs");
        latency.put("p50", micros.getValueAtPercentile(50) / 1_000.0);
        latency.put("p99", micros.getValueAtPercentile(99) / 1_000.0);
        latency.put("max", micros.getMaxValue() / 1_000.0);
        out.put("nodeHeapLiveBytes", api.heap()[0]);
        return out;
    }

    /** Returns acknowledged, failed, and the nanoseconds it ran. */
    private long[] closedLoop(int clients, int seconds, long delayMs, ConcurrentHistogram micros) {
        AtomicLong acknowledged = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong sequence = new AtomicLong();
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        List<Thread> threads = new ArrayList<>();
        SubmitClient http = new SubmitClient(clients);
        for (int c = 0; c < clients; c++) {
            String url = nodeUrls.get(c % nodeUrls.size()) + "/api/v1/jobs";
            Thread t = new Thread(() -> {
                while (System.nanoTime() < end) {
                    long i = sequence.incrementAndGet();
                    String body = "{\"service\":\"" + service + "\",\"delayMs\":" + delayMs + ",\"bizKey\":\""
                            + JobSubmitter.bizKey(i) + "\",\"payload\":{\"i\":" + i + "}}";
                    long t0 = System.nanoTime();
                    try {
                        if (http.post(url, token, body) == 201) {
                            acknowledged.incrementAndGet();
                            micros.recordValue(Math.min((System.nanoTime() - t0) / 1_000, 60_000_000L));
                        } else {
                            failed.incrementAndGet();
                        }
                    } catch (java.io.IOException | RuntimeException e) {
                        failed.incrementAndGet();
                    }
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long elapsed = System.nanoTime() - start;
        try {
            http.close();
        } catch (java.io.IOException e) {
            // nothing left to measure
        }
        if (failed.get() > 0) {
            System.err.println(failed.get() + " submits failed");
        }
        return new long[] {acknowledged.get(), failed.get(), elapsed};
    }

    private void awaitDeliveries(int jobs, long deadline) {
        while (sink.deliveries.size() < jobs && System.currentTimeMillis() < deadline) {
            sleep(200);
        }
        long seenAll = System.currentTimeMillis();
        // a node counts an attempt's outcome once its result is written, which trails the delivery:
        // wait for one outcome per delivery received, so the report counts them all, and say how long
        long received =
                sink.deliveries.values().stream().mapToLong(Integer::longValue).sum();
        long writesDeadline = seenAll + RESULT_WRITES_WAIT_MS;
        while (total(outcomesSinceBaseline()) < received && System.currentTimeMillis() < writesDeadline) {
            sleep(50);
        }
        resultsWrittenAfterLastDeliveryMs = total(outcomesSinceBaseline()) < received
                ? -1 // not all written within the wait
                : Math.max(0, System.currentTimeMillis() - sink.lastArrival.get());
        sleep(Math.max(0, seenAll + 2_000 - System.currentTimeMillis())); // late duplicates, if any
    }

    /** How long {@link #awaitDeliveries} waits for the node to write the results of what arrived. */
    static final long RESULT_WRITES_WAIT_MS = 60_000;

    /** From the last delivery to the node's last result write for them, as the last wait saw it. */
    private long resultsWrittenAfterLastDeliveryMs;

    private ObjectNode report(String workload, int jobs, double submitRate) {
        ObjectNode out = JSON.createObjectNode();
        out.put("workload", workload);
        out.put("jobs", jobs);
        out.put("submitRatePerSec", Math.round(submitRate));
        ObjectNode late = out.putObject("latenessMs");
        late.put("p50", sink.lateness.getValueAtPercentile(50));
        late.put("p95", sink.lateness.getValueAtPercentile(95));
        late.put("p99", sink.lateness.getValueAtPercentile(99));
        late.put("p999", sink.lateness.getValueAtPercentile(99.9));
        late.put("max", sink.lateness.getMaxValue());
        if (sink.inNode.getTotalCount() > 0) {
            ObjectNode in = out.putObject("latenessInNodeMs"); // fired-at - fire-at
            in.put("p50", sink.inNode.getValueAtPercentile(50));
            in.put("p99", sink.inNode.getValueAtPercentile(99));
            in.put("max", sink.inNode.getMaxValue());
            ObjectNode after = out.putObject("latenessAfterNodeMs"); // arrival - fired-at
            after.put("p50", sink.afterNode.getValueAtPercentile(50));
            after.put("p99", sink.afterNode.getValueAtPercentile(99));
            after.put("max", sink.afterNode.getMaxValue());
        }
        out.put("delivered", sink.deliveries.size());
        out.put("missed", jobs - sink.deliveries.size());
        out.put(
                "duplicated",
                sink.deliveries.values().stream().filter(c -> c > 1).count());
        out.put("early", sink.early.get());
        out.set("nodeAttemptsByOutcome", outcomesSinceBaseline());
        out.put("resultsWrittenAfterLastDeliveryMs", resultsWrittenAfterLastDeliveryMs);
        out.put("nodes", apis.size());
        com.fasterxml.jackson.databind.node.ArrayNode perNode = out.putArray("nodeHeapLiveBytesPerNode");
        apis.forEach(a -> perNode.add(a.heap()[0]));
        long[] heap = api.heap();
        out.put("nodeHeapLiveBytes", heap[0]);
        out.put("nodeHeapUsedBytes", heap[1]);
        return out;
    }

    /** The claim metrics' sums over every node (NodeApi#claims). */
    private double[] claimSums() {
        double[] sums = new double[3];
        for (NodeApi a : apis) {
            double[] one = a.claims();
            for (int i = 0; i < sums.length; i++) {
                sums[i] += one[i];
            }
        }
        return sums;
    }

    /** Attempts ended on every node since the warm-up, by outcome. */
    private ObjectNode outcomesSinceBaseline() {
        ObjectNode since = JSON.createObjectNode();
        outcomes()
                .fields()
                .forEachRemaining(e -> since.put(
                        e.getKey(),
                        e.getValue().asLong()
                                - (baseline == null
                                        ? 0
                                        : baseline.path(e.getKey()).asLong())));
        return since;
    }

    private static long total(ObjectNode counts) {
        long sum = 0;
        for (JsonNode n : counts) {
            sum += n.asLong();
        }
        return sum;
    }

    /** Attempts by outcome since start, summed over the nodes (each counts what it fired). */
    private ObjectNode outcomes() {
        ObjectNode sum = JSON.createObjectNode();
        for (NodeApi a : apis) {
            a.call("GET", "/api/v1/stats", token, null)
                    .get("attemptsSinceStartByOutcome")
                    .fields()
                    .forEachRemaining(e -> sum.put(
                            e.getKey(),
                            sum.path(e.getKey()).asLong() + e.getValue().asLong()));
        }
        return sum;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
