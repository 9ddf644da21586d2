package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.core.cluster.Assignment;
import dev.hourglass.node.core.cluster.Member;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.Coordination;
import dev.hourglass.node.core.port.JobReads;
import dev.hourglass.node.metrics.FiringHistory;
import dev.hourglass.node.metrics.FiringMetrics;
import dev.hourglass.node.metrics.PullMetrics;
import dev.hourglass.node.pull.PullConsumers;
import dev.hourglass.node.tenant.Caller;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Health, metrics, cluster, stats, the OpenAPI document and the dashboard (docs/api.md, "Operations"). */
public final class OpsRoutes implements RouteGroup {
    private final NodeStatus node;
    private final JobReads jobs;
    private final FiringMetrics metrics;
    private final FiringHistory history;
    private final PrometheusMeterRegistry prometheus;
    private final Callers callers;

    private final PullConsumers pull;
    private final PullMetrics pullMetrics;
    private final Clock clock;

    public OpsRoutes(
            NodeStatus node,
            JobReads jobs,
            FiringMetrics metrics,
            FiringHistory history,
            PrometheusMeterRegistry prometheus,
            Callers callers,
            PullConsumers pull,
            PullMetrics pullMetrics,
            Clock clock) {
        this.pull = pull;
        this.pullMetrics = pullMetrics;
        this.clock = clock;
        this.node = node;
        this.jobs = jobs;
        this.metrics = metrics;
        this.history = history;
        this.prometheus = prometheus;
        this.callers = callers;
    }

    @Override
    public void register(RoutesConfig r) {
        r.get("/health/live", ctx -> Respond.ok(ctx, Json.object().put("status", "UP")));
        r.get("/health/ready", ctx -> {
            boolean ready = node.isReady();
            Respond.json(ctx, ready ? 200 : 503, Json.object().put("status", ready ? "READY" : "NOT_READY"));
        });
        r.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                .result(prometheus.scrape()));
        r.get("/api/v1/openapi.json", ctx -> resource(ctx, "/public/openapi.json", "application/json"));
        r.get("/", ctx -> resource(ctx, "/public/index.html", "text/html; charset=utf-8"));
        r.get("/dashboard.js", ctx -> resource(ctx, "/public/dashboard.js", "text/javascript; charset=utf-8"));
        r.get("/api/v1/cluster", this::cluster);
        r.get("/api/v1/stats", this::stats);
        r.get("/api/v1/stats/history", this::history);
    }

    private void cluster(Context ctx) {
        callers.of(ctx);
        Coordination cluster = node.cluster();
        Assignment assignment = cluster.assignment();
        String master = cluster.master();
        ObjectNode out = Json.object();
        out.put("master", master);
        out.put("epoch", assignment.epoch());
        out.put("shardCount", node.shardCount());
        out.put("self", node.nodeId());
        out.put("connected", cluster.isConnected());
        ArrayNode nodes = out.putArray("nodes");
        for (Member m : cluster.members()) {
            ObjectNode n = nodes.addObject();
            n.put("id", m.id());
            n.put("address", m.address());
            n.put("version", m.version());
            n.put("master", m.id().equals(master));
            n.put("startedAt", Json.time(m.startedAt()));
            ArrayNode shards = n.putArray("shards");
            assignment.shardsOf(m.id()).forEach(shards::add);
            boolean self = m.id().equals(node.nodeId());
            n.put("inMemory", self ? node.inMemory() : m.inMemory());
            n.put("inFlight", self ? node.inFlight() : m.inFlight());
            Long loaded = self ? (node.watermark() == Long.MIN_VALUE ? null : node.watermark()) : m.loadedUntil();
            n.put("loadedUntil", loaded == null ? null : Json.time(loaded));
        }
        Respond.ok(ctx, out);
    }

    private void stats(Context ctx) {
        Caller caller = callers.of(ctx);
        String app = callers.scope(ctx, caller);
        Map<String, Long> byState = new TreeMap<>();
        Map<String, Map<String, Long>> byService = new TreeMap<>();
        for (JobReads.LiveCount c : jobs.countLive(app)) {
            byState.merge(c.state(), c.count(), Long::sum);
            byService
                    .computeIfAbsent(Job.serviceKey(c.app(), c.service()), k -> new TreeMap<>())
                    .put(c.state(), c.count());
        }
        ObjectNode out = Json.object();
        out.set("liveByState", Json.map(byState));
        out.set("liveByService", Json.map(byService));
        out.put("firedSinceStart", metrics.firedCount());
        out.set("attemptsSinceStartByOutcome", Json.map(metrics.outcomeCounts()));
        out.set("latenessMs", Json.map(metrics.latenessSummary()));
        out.set("pullLatenessMs", Json.map(pullMetrics.latenessSummary()));
        ObjectNode pulled = out.putObject("pull"); // per PULL service: its consumers' backlog
        long now = clock.millis();
        pull.backlogs(app).forEach((key, b) -> pulled.putObject(key)
                .put("ready", b.ready())
                .put("reserved", b.reserved())
                .put("oldestReadyAgeMs", b.oldestReadyDueAt() == null ? 0 : Math.max(0, now - b.oldestReadyDueAt())));
        Respond.ok(ctx, out);
    }

    /**
     * This node's firing per second (last 5 min) or per minute (last hour), and its services' last
     * minute. Node-wide figures like {@code /api/v1/stats}; an app token sees only its app's services.
     */
    private void history(Context ctx) {
        Caller caller = callers.of(ctx);
        String app = callers.scope(ctx, caller);
        String resolution = ctx.queryParamAsClass("resolution", String.class).getOrDefault("second");
        List<FiringHistory.Point> points =
                switch (resolution) {
                    case "second" -> history.seconds();
                    case "minute" -> history.minutes();
                    default -> throw HourglassException.invalid("resolution", "resolution must be second or minute");
                };
        ObjectNode out = Json.object();
        out.put("node", node.nodeId());
        out.put("resolution", resolution);
        ArrayNode items = out.putArray("points");
        for (FiringHistory.Point p : points) {
            ObjectNode n = items.addObject();
            n.put("at", Json.time(p.at()));
            n.put("ms", p.ms());
            n.put("fired", p.fired());
            ObjectNode attempts = n.putObject("attempts");
            p.attempts().forEach((o, c) -> attempts.put(o.name(), c));
            n.putObject("latenessMs").put("p50", p.p50()).put("p99", p.p99()).put("max", p.max());
        }
        Map<String, Integer> inFlight = node.inFlightByService();
        Map<String, FiringHistory.ServiceActivity> activity = history.lastMinuteByService();
        ObjectNode services = out.putObject("services");
        java.util.SortedSet<String> keys = new java.util.TreeSet<>(activity.keySet());
        keys.addAll(inFlight.keySet());
        for (String key : keys) {
            if (app != null && !key.startsWith(app + "/")) {
                continue;
            }
            FiringHistory.ServiceActivity a = activity.getOrDefault(key, new FiringHistory.ServiceActivity(0, 0));
            services.putObject(key)
                    .put("attemptsLastMinute", a.attempts())
                    .put("failedLastMinute", a.failed())
                    .put("inFlight", inFlight.getOrDefault(key, 0));
        }
        Respond.ok(ctx, out);
    }

    private static void resource(Context ctx, String path, String contentType) {
        try (InputStream in = OpsRoutes.class.getResourceAsStream(path)) {
            if (in == null) {
                ctx.status(404);
                return;
            }
            ctx.contentType(contentType).result(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
