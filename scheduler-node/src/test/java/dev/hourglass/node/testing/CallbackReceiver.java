package dev.hourglass.node.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A real HTTP callback peer on 127.0.0.1: records every request with the time it arrived and
 * answers with what the test's responder says (status, body, headers, delay).
 */
public final class CallbackReceiver implements AutoCloseable {
    /** A request: when, its job, attempt, signature, body, and every header (lower-case names, first value). */
    public record Received(
            long at, String jobId, int attempt, String signature, String body, Map<String, String> headers) {}

    public record Reply(int status, String body, Map<String, String> headers, long delayMs) {
        public static Reply ok() {
            return new Reply(200, "", Map.of(), 0);
        }

        public static Reply status(int status) {
            return new Reply(status, "", Map.of(), 0);
        }

        public static Reply json(String body) {
            return new Reply(200, body, Map.of("Content-Type", "application/json"), 0);
        }
    }

    static {
        // the JDK server closes every connection beyond this many idle ones right after its answer
        // (200 by default), and a node with more callbacks in flight then has exchanges fail: the
        // root POM sets it for failsafe's runs, this for a run outside it (an IDE), if the JVM
        // has not read the server's settings yet
        if (System.getProperty("sun.net.httpserver.maxIdleConnections") == null) {
            System.setProperty("sun.net.httpserver.maxIdleConnections", "10000");
        }
    }

    private final HttpServer server;
    // a queue, not a copy-on-write list: that copied the whole list on every request (O(n²) over a
    // 20,000-job burst), which slowed the machine the nodes under test share
    private final java.util.Queue<Received> received = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final AtomicInteger concurrent = new AtomicInteger();
    private final AtomicInteger maxConcurrent = new AtomicInteger();
    private volatile Function<Received, Reply> responder = r -> Reply.ok();

    private final java.util.concurrent.ExecutorService handlers;

    public CallbackReceiver() throws IOException {
        this(64);
    }

    /** @param handlerThreads how many requests it can hold open at once (a slow receiver's replies) */
    public CallbackReceiver(int handlerThreads) throws IOException {
        handlers = Executors.newFixedThreadPool(handlerThreads);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
        server.start();
    }

    /**
     * Counts a request as under way from its arrival until just before its answer is written: the
     * sender can only start its next request after reading the answer, so counting until after the
     * write would see overlaps that the sender never made.
     */
    private void handle(HttpExchange ex) throws IOException {
        maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
        boolean[] counted = {true};
        try {
            answer(ex, () -> {
                counted[0] = false;
                concurrent.decrementAndGet();
            });
        } catch (RuntimeException e) {
            // the JDK server leaves the exchange open when a handler throws: the sender would wait
            // for an answer until its own timeout, a stall no test asked for
            ex.sendResponseHeaders(500, -1);
            ex.close();
            throw e;
        } finally {
            if (counted[0]) {
                concurrent.decrementAndGet();
            }
        }
    }

    private static Map<String, String> firstValues(com.sun.net.httpserver.Headers headers) {
        Map<String, String> out = new java.util.HashMap<>();
        headers.forEach((name, values) -> out.put(name.toLowerCase(java.util.Locale.ROOT), values.get(0)));
        return out;
    }

    private void answer(HttpExchange ex, Runnable beforeWriting) throws IOException {
        long at = System.currentTimeMillis();
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String attempt = ex.getRequestHeaders().getFirst("Hourglass-Attempt");
        Received r = new Received(
                at,
                ex.getRequestHeaders().getFirst("Hourglass-Job-Id"),
                attempt == null ? -1 : Integer.parseInt(attempt),
                ex.getRequestHeaders().getFirst("Hourglass-Signature"),
                body,
                firstValues(ex.getRequestHeaders()));
        received.add(r);
        Reply reply = responder.apply(r);
        if (reply.delayMs() > 0) {
            try {
                Thread.sleep(reply.delayMs());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        beforeWriting.run();
        reply.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
        byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
        ex.close();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/callback";
    }

    public void respond(Function<Received, Reply> responder) {
        this.responder = responder;
    }

    /** The most requests this receiver was answering at the same time, since the last reset. */
    public int maxConcurrent() {
        return maxConcurrent.get();
    }

    public void resetConcurrency() {
        maxConcurrent.set(0);
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    /**
     * How many requests arrived so far, copying nothing: a cheap first test for a wait on tens of
     * thousands of deliveries, before {@link #countsByJob()} builds its map of them all.
     */
    public int receivedCount() {
        return received.size();
    }

    public List<Received> receivedFor(String jobId) {
        return received.stream().filter(r -> jobId.equals(r.jobId())).toList();
    }

    /** Job id -> number of deliveries, to find duplicates. */
    public Map<String, Integer> countsByJob() {
        Map<String, Integer> counts = new ConcurrentHashMap<>();
        received.forEach(r -> counts.merge(r.jobId(), 1, Integer::sum));
        return counts;
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow(); // also ends replies still waiting out a delay
    }
}
