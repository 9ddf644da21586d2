package dev.hourglass.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * The two ways the workloads submit jobs to a service, rotating over every node given: batches of
 * 1,000 as fast as four in flight allow ({@link #batches}), and single submits at a fixed rate
 * ({@link #paced}). Every job carries a business key unique within the run ({@link #bizKey}).
 *
 * <p>Both block until every submit is answered (or its wait ran out), so that the caller knows its
 * jobs are in the database when it returns.
 */
final class JobSubmitter {
    private final List<NodeApi> apis;
    private final List<String> nodeUrls;
    private final String token;

    JobSubmitter(List<NodeApi> apis, List<String> nodeUrls, String token) {
        this.apis = apis;
        this.nodeUrls = nodeUrls;
        this.token = token;
    }

    interface FireTime {
        long of(int index);
    }

    /** Submits {@code jobs} jobs in batches of 1,000; throws if any batch or item was refused. */
    void batches(String service, int jobs, FireTime fireTime) {
        Semaphore inFlight = new Semaphore(4);
        List<CompletableFuture<?>> all = new ArrayList<>();
        AtomicLong failed = new AtomicLong();
        for (int start = 0; start < jobs; start += 1_000) {
            StringBuilder body = new StringBuilder("{\"jobs\":[");
            for (int i = start; i < Math.min(jobs, start + 1_000); i++) {
                body.append(i == start ? "" : ",")
                        .append("{\"service\":\"")
                        .append(service)
                        .append("\",\"fireAt\":")
                        .append(fireTime.of(i))
                        .append(",\"bizKey\":\"")
                        .append(bizKey(i))
                        .append("\",\"payload\":{\"i\":")
                        .append(i)
                        .append("}}");
            }
            body.append("]}");
            inFlight.acquireUninterruptibly();
            all.add(apis.get((start / 1_000) % apis.size())
                    .sendAsync("POST", "/api/v1/jobs/batch", token, body.toString())
                    .handle((r, e) -> { // keeps no response: 10M jobs' answers filled the heap
                        inFlight.release();
                        if (e != null || r.statusCode() != 200 || r.body().contains("\"error\"")) {
                            failed.incrementAndGet();
                        }
                        return null;
                    }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " batches failed");
        }
    }

    /**
     * Submits {@code jobs} single jobs at {@code rate}/s, each due {@code delayMs} later; gives the
     * node URL each accepted (201) job was submitted through and the body of its answer to {@code
     * accepted} (on a sender thread; null: dropped).
     * Returns the achieved submit rate and the number of submits refused or failed.
     */
    Paced paced(String service, int rate, int jobs, long delayMs, BiConsumer<String, String> accepted) {
        int senders = 64; // blocking clients: enough for 5,000/s at 10 ms each
        Semaphore inFlight = new Semaphore(512);
        AtomicLong failed = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(senders);
        SubmitClient http = new SubmitClient(senders);
        long start = System.nanoTime();
        for (int i = 0; i < jobs; i++) {
            long due = start + (long) i * 1_000_000_000L / rate;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            inFlight.acquireUninterruptibly();
            String body = "{\"service\":\"" + service + "\",\"delayMs\":" + delayMs + ",\"bizKey\":\"" + bizKey(i)
                    + "\",\"payload\":{\"i\":" + i + "}}";
            String node = nodeUrls.get(i % nodeUrls.size());
            String url = node + "/api/v1/jobs";
            pool.execute(() -> {
                try {
                    if (accepted == null) {
                        if (http.post(url, token, body) != 201) {
                            failed.incrementAndGet();
                        }
                    } else {
                        SubmitClient.Answer answer = http.exchange(url, token, body);
                        if (answer.status() == 201) {
                            accepted.accept(node, answer.body());
                        } else {
                            failed.incrementAndGet();
                        }
                    }
                } catch (java.io.IOException | RuntimeException e) {
                    failed.incrementAndGet();
                } finally {
                    inFlight.release();
                }
            });
        }
        pool.shutdown();
        try {
            if (!pool.awaitTermination(120, TimeUnit.SECONDS)) {
                pool.shutdownNow();
            }
            http.close();
        } catch (InterruptedException | java.io.IOException e) {
            Thread.currentThread().interrupt();
        }
        double elapsedS = (System.nanoTime() - start) / 1e9;
        if (failed.get() > 0) {
            System.err.println(failed.get() + " submits failed");
        }
        return new Paced(Math.round(jobs / elapsedS * 10) / 10.0, failed.get());
    }

    record Paced(double ratePerSec, long failed) {}

    /**
     * Users send a business key with their jobs (the README tells them to: it makes a resent submit
     * idempotent), and the node then checks it for uniqueness: every submit here carries one,
     * unique within the run.
     */
    static String bizKey(long i) {
        return RUN + "-" + BIZ_KEYS.incrementAndGet() + "-" + i;
    }

    private static final String RUN = Long.toString(System.currentTimeMillis(), 36);
    private static final AtomicLong BIZ_KEYS = new AtomicLong();
}
