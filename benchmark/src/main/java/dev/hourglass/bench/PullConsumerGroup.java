package dev.hourglass.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.hc.core5.util.Timeout;

/**
 * Pull consumers of one service, each a thread with its own loop: reserve up to {@code max} jobs
 * (long-polling {@code waitMs}), note each job in the {@link PullTally} when the answer is read
 * (with the node URL it was reserved through), acknowledge them SUCCESS with POST
 * /api/v1/results; again. Consumer {@code c} talks to node {@code c % nodes}.
 *
 * <p>How a consumer acknowledges is {@link Acks}: {@code BACKGROUND} (the default) as the SDK's
 * {@code PullConsumer} does, by a results thread of its own that sends whatever has gathered
 * (up to 1,000) while the consumer is back in its long poll; {@code INLINE} by the consumer
 * itself, one call per batch before it reserves again, so it is not waiting while it acknowledges.
 *
 * <p>A consumer stops at {@link #stop}, at its deadline, or after {@code maxReservesEach} reserve
 * calls, whichever comes first. After each batch it asks {@code done} whether the work is complete
 * and, the first time it is, notes the moment ({@link #doneAtNanos}): that, not when the threads
 * end, is the end of a measurement, as the other consumers may still be in a long poll then.
 * {@link #stop} ends those polls by closing their connections.
 */
final class PullConsumerGroup {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Who sends a consumer's acknowledgements: a results thread of its own, or the consumer. */
    enum Acks {
        BACKGROUND,
        INLINE
    }

    /** The results one call may carry (docs/api.md, POST /api/v1/results). */
    private static final int MAX_RESULTS_PER_CALL = 1_000;

    /** What each consumer asks for: up to {@code max} jobs of {@code service}, held {@code ttrMs}. */
    record Reserve(String service, int max, long ttrMs, long waitMs) {
        String body() {
            return "{\"services\":[\"" + service + "\"],\"max\":" + max + ",\"ttrMs\":" + ttrMs + ",\"waitMs\":"
                    + waitMs + "}";
        }
    }

    private final List<String> nodeUrls;
    private final String token;
    private final int consumers;
    private final Reserve reserve;
    private final PullTally tally;
    private final BooleanSupplier done;
    private final long deadlineNanos;
    private final long maxReservesEach;
    private final Acks acks;
    private final SubmitClient http;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Thread> ackThreads = new ArrayList<>();
    private final AtomicLong doneAt = new AtomicLong();
    private volatile boolean stopping;

    /**
     * @param maxSeconds how long the consumers run at most, from construction
     * @param maxReservesEach reserve calls each consumer makes at most
     */
    PullConsumerGroup(
            List<String> nodeUrls,
            String token,
            int consumers,
            Reserve reserve,
            PullTally tally,
            BooleanSupplier done,
            long maxSeconds,
            long maxReservesEach,
            Acks acks) {
        this.nodeUrls = nodeUrls;
        this.token = token;
        this.consumers = consumers;
        this.reserve = reserve;
        this.tally = tally;
        this.done = done;
        this.deadlineNanos = System.nanoTime() + maxSeconds * 1_000_000_000L;
        this.maxReservesEach = maxReservesEach;
        this.acks = acks;
        // a long poll is answered by waitMs; the margin is for a node slowed by the load. A
        // connection for each consumer and each results thread
        this.http = new SubmitClient(2 * consumers, Timeout.ofMilliseconds(reserve.waitMs() + 15_000));
    }

    void start() {
        for (int c = 0; c < consumers; c++) {
            String base = nodeUrls.get(c % nodeUrls.size());
            String resultsUrl = base + "/api/v1/results";
            Consumer<List<JsonNode>> acknowledge;
            if (acks == Acks.BACKGROUND) {
                LinkedBlockingQueue<List<JsonNode>> pending = new LinkedBlockingQueue<>();
                Thread sender = new Thread(
                        () -> sendGathered(resultsUrl, pending), "pull-results-" + reserve.service() + "-" + c);
                sender.setDaemon(true);
                ackThreads.add(sender);
                sender.start();
                acknowledge = pending::add;
            } else {
                acknowledge = items -> send(resultsUrl, items);
            }
            Thread t = new Thread(() -> consume(base, acknowledge), "pull-consumer-" + reserve.service() + "-" + c);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /** When {@code done} first held (System.nanoTime()), or 0 while it has not. */
    long doneAtNanos() {
        return doneAt.get();
    }

    /** Waits until {@code done} held or {@code maxMs} passed; returns whether it held. */
    boolean awaitDone(long maxMs) {
        long until = System.nanoTime() + maxMs * 1_000_000L;
        while (doneAt.get() == 0 && System.nanoTime() < until && System.nanoTime() < deadlineNanos) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return doneAt.get() != 0;
    }

    /** Ends every consumer: a long poll under way fails at once; waits for the threads (5 s each at most). */
    void stop() {
        stopping = true;
        http.abort();
        ackThreads.forEach(Thread::interrupt);
        List<Thread> all = new ArrayList<>(threads);
        all.addAll(ackThreads);
        for (Thread t : all) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                System.err.println(t.getName() + " did not stop within 5 s");
                t.interrupt();
            }
        }
    }

    private void consume(String base, Consumer<List<JsonNode>> acknowledge) {
        String reserveUrl = base + "/api/v1/reserve";
        String reserveBody = reserve.body();
        for (long call = 0; call < maxReservesEach && !stopping && System.nanoTime() < deadlineNanos; call++) {
            try {
                long t0 = System.nanoTime();
                SubmitClient.Answer answer = http.exchange(reserveUrl, token, reserveBody);
                long heldAt = System.currentTimeMillis();
                long reserveMicros = (System.nanoTime() - t0) / 1_000;
                if (answer.status() != 200) {
                    tally.reserveFailed(answer.status() + " " + answer.body());
                    pause();
                    continue;
                }
                JsonNode items = JSON.readTree(answer.body()).path("items");
                tally.reserveCall(items.size(), reserveMicros);
                if (!items.isEmpty()) {
                    List<JsonNode> held = new ArrayList<>(items.size());
                    for (JsonNode item : items) {
                        tally.reserved(
                                item.path("id").asText(),
                                Instant.parse(item.path("fireAt").asText()).toEpochMilli(),
                                heldAt,
                                base);
                        held.add(item);
                    }
                    acknowledge.accept(held);
                }
                if (doneAt.get() == 0 && done.getAsBoolean()) {
                    doneAt.compareAndSet(0, System.nanoTime());
                }
            } catch (IOException | RuntimeException e) {
                if (stopping) {
                    return; // stop() closed the connection under the call
                }
                tally.reserveFailed(e.toString());
                pause();
            }
        }
    }

    /**
     * A results thread: waits for the first batch, then sends it with every batch gathered behind
     * it (up to {@link #MAX_RESULTS_PER_CALL} results a call), until {@link #stop}.
     */
    private void sendGathered(String resultsUrl, LinkedBlockingQueue<List<JsonNode>> pending) {
        List<JsonNode> items = new ArrayList<>();
        while (!stopping) {
            try {
                items.addAll(pending.take());
            } catch (InterruptedException e) {
                return; // stop()
            }
            List<JsonNode> next;
            while (items.size() < MAX_RESULTS_PER_CALL
                    && (next = pending.peek()) != null
                    && items.size() + next.size() <= MAX_RESULTS_PER_CALL) {
                items.addAll(pending.poll());
            }
            send(resultsUrl, items);
            items = new ArrayList<>();
        }
    }

    /** Acknowledges {@code items} SUCCESS in one call and counts what the node answered. */
    private void send(String resultsUrl, List<JsonNode> items) {
        StringBuilder body = new StringBuilder("{\"results\":[");
        String separator = "";
        for (JsonNode item : items) {
            body.append(separator)
                    .append("{\"jobId\":\"")
                    .append(item.path("id").asText())
                    .append("\",\"attempt\":")
                    .append(item.path("attempt").asInt())
                    .append(",\"status\":\"SUCCESS\"}");
            separator = ",";
        }
        body.append("]}");
        long t0 = System.nanoTime();
        SubmitClient.Answer answer;
        JsonNode answered;
        try {
            answer = http.exchange(resultsUrl, token, body.toString());
            answered = answer.status() == 200 ? JSON.readTree(answer.body()).path("results") : null;
        } catch (IOException | RuntimeException e) {
            if (!stopping) {
                tally.resultsFailed(items.size(), e.toString()); // counted here, not again as a reserve's
            }
            return;
        }
        long micros = (System.nanoTime() - t0) / 1_000;
        if (answered == null) {
            tally.resultsFailed(items.size(), answer.status() + " " + answer.body());
            return;
        }
        int finished = 0;
        int refused = 0;
        for (JsonNode result : answered) {
            if ("FINISHED".equals(result.path("state").asText())) {
                finished++;
            } else {
                refused++;
                tally.error("result refused: " + result);
            }
        }
        tally.resultsCall(finished, refused + Math.max(0, items.size() - finished - refused), micros);
    }

    private static void pause() {
        try {
            Thread.sleep(100); // an error is not retried in a tight loop
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
