package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.node.job.JobRepository;
import dev.hourglass.node.manage.Caller;
import dev.hourglass.node.metrics.FiringMetrics;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/** Health, metrics, cluster, stats, the OpenAPI document and the dashboard (SPEC §3 "Operations"). */
final class OpsRoutes {
    private final NodeStatus node;
    private final JobRepository jobs;
    private final FiringMetrics metrics;
    private final PrometheusMeterRegistry prometheus;
    private final Callers callers;

    OpsRoutes(
            NodeStatus node,
            JobRepository jobs,
            FiringMetrics metrics,
            PrometheusMeterRegistry prometheus,
            Callers callers) {
        this.node = node;
        this.jobs = jobs;
        this.metrics = metrics;
        this.prometheus = prometheus;
        this.callers = callers;
    }

    void register(RoutesConfig r) {
        r.get("/health/live", ctx -> Respond.ok(ctx, Json.object().put("status", "UP")));
        r.get("/health/ready", ctx -> {
            boolean ready = node.isReady();
            Respond.json(ctx, ready ? 200 : 503, Json.object().put("status", ready ? "READY" : "NOT_READY"));
        });
        r.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                .result(prometheus.scrape()));
        r.get("/api/v1/openapi.json", ctx -> resource(ctx, "/public/openapi.json", "application/json"));
        r.get("/", ctx -> resource(ctx, "/public/index.html", "text/html; charset=utf-8"));
        r.get("/api/v1/cluster", this::cluster);
        r.get("/api/v1/stats", this::stats);
    }

    private void cluster(Context ctx) {
        callers.of(ctx);
        ObjectNode out = Json.object();
        out.put("master", node.nodeId());
        out.put("epoch", 0);
        out.put("shardCount", node.shardCount());
        ArrayNode nodes = out.putArray("nodes");
        ObjectNode self = nodes.addObject();
        self.put("id", node.nodeId());
        self.put("address", node.address());
        self.put("master", true);
        ArrayNode shards = self.putArray("shards");
        node.ownedShards().forEach(shards::add);
        self.put("inMemory", node.inMemory());
        self.put("inFlight", node.inFlight());
        self.put("loadedUntil", node.watermark() == Long.MIN_VALUE ? null : Json.time(node.watermark()));
        Respond.ok(ctx, out);
    }

    private void stats(Context ctx) {
        Caller caller = callers.of(ctx);
        String app = callers.scope(ctx, caller);
        Map<String, Long> byState = new TreeMap<>();
        Map<String, Map<String, Long>> byService = new TreeMap<>();
        for (JobRepository.LiveCount c : jobs.countLive(app)) {
            byState.merge(c.state(), c.count(), Long::sum);
            byService
                    .computeIfAbsent(c.app() + "/" + c.service(), k -> new TreeMap<>())
                    .put(c.state(), c.count());
        }
        ObjectNode out = Json.object();
        out.set("liveByState", Json.map(byState));
        out.set("liveByService", Json.map(byService));
        out.put("firedSinceStart", metrics.firedCount());
        out.set("attemptsSinceStartByOutcome", Json.map(metrics.outcomeCounts()));
        out.set("latenessMs", Json.map(metrics.latenessSummary()));
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
