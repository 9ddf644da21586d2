package dev.hourglass.bench;

import io.javalin.Javalin;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * The benchmark's HTTP callback receiver on 127.0.0.1: answers 200 at once and records, per job,
 * how many deliveries arrived, and the lateness (arrival - fireAt) of each first delivery.
 *
 * <p>Not the tests' {@code CallbackReceiver} (scheduler-node's test-jar), which keeps every request
 * whole and answers as the test tells it, to assert on afterwards. This one keeps a count per job
 * and histograms, not the requests; takes Kafka and Dubbo arrivals too ({@link #arrived}); and
 * parses as little as it can, since it shares the CPU with the node it measures.
 */
final class CallbackSink implements AutoCloseable {
    private final Javalin server;
    final ConcurrentHashMap<String, Integer> deliveries = new ConcurrentHashMap<>();
    final ConcurrentHistogram lateness = new ConcurrentHistogram(3_600_000L, 3);
    /**
     * For records that say when the node sent them (Kafka's {@code hourglass-fired-at}): the part of
     * each first delivery's lateness spent in the node (fired - fireAt) and after it (arrival -
     * fired: producer, broker, consumer).
     */
    final ConcurrentHistogram inNode = new ConcurrentHistogram(3_600_000L, 3);

    final ConcurrentHistogram afterNode = new ConcurrentHistogram(3_600_000L, 3);
    final AtomicLong early = new AtomicLong();
    final AtomicLong firstArrival = new AtomicLong(Long.MAX_VALUE);
    final AtomicLong lastArrival = new AtomicLong();

    CallbackSink() {
        server = Javalin.create(c -> {
                    c.startup.showJavalinBanner = false;
                    c.jetty.host = "127.0.0.1";
                    c.jetty.port = 0;
                    c.routes.post("/bench", ctx -> {
                        record(ctx.bodyAsBytes());
                        ctx.status(200);
                    });
                })
                .start();
    }

    String url() {
        return "http://127.0.0.1:" + server.port() + "/bench";
    }

    /**
     * Reads jobId and fireAt by position rather than parsing the JSON: on a 2-core machine the
     * receiver shares the CPU with the node, and a full parse per request would be measured as
     * the node's slowness.
     */
    private void record(byte[] bytes) {
        long now = System.currentTimeMillis();
        String body = new String(bytes, StandardCharsets.UTF_8);
        arrived(
                field(body, "\"jobId\":\""),
                Instant.parse(field(body, "\"fireAt\":\"")).toEpochMilli(),
                now);
    }

    /** One delivery of a job due at {@code fireAt} arrived at {@code now} (HTTP or Kafka). */
    void arrived(String id, long fireAt, long now) {
        int count = deliveries.merge(id, 1, Integer::sum);
        if (count == 1) {
            long late = now - fireAt;
            if (late < 0) {
                early.incrementAndGet();
            }
            lateness.recordValue(Math.max(0, late));
        }
        firstArrival.accumulateAndGet(now, Math::min);
        lastArrival.accumulateAndGet(now, Math::max);
    }

    private static String field(String body, String marker) {
        int start = body.indexOf(marker) + marker.length();
        return body.substring(start, body.indexOf('"', start));
    }

    /** {@link #arrived}, for a record that also says when the node sent it. */
    void arrived(String id, long fireAt, long firedAt, long now) {
        if (!deliveries.containsKey(id)) {
            inNode.recordValue(Math.max(0, firedAt - fireAt));
            afterNode.recordValue(Math.max(0, now - firedAt));
        }
        arrived(id, fireAt, now);
    }

    void reset() {
        deliveries.clear();
        lateness.reset();
        inNode.reset();
        afterNode.reset();
        early.set(0);
        firstArrival.set(Long.MAX_VALUE);
        lastArrival.set(0);
    }

    @Override
    public void close() {
        server.stop();
    }
}
