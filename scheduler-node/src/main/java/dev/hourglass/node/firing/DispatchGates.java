package dev.hourglass.node.firing;

import dev.hourglass.node.background.TaskScheduler;
import dev.hourglass.node.core.service.RateShare;
import dev.hourglass.node.core.service.TokenBucket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Holds each service to its share of {@code maxInFlight} concurrent deliveries and of its rate
 * limit. A claimed attempt whose service is at its limit, or out of tokens, waits here, in memory,
 * in order: for a delivery of that service to end, or for the bucket's next token (a timer looks
 * again then). The claim bound (see {@link ServiceCapacity}) bounds how many wait.
 *
 * <p>Thread-safe; the {@code admitted} callback runs outside the gate's lock, on the thread that
 * submitted or released, or on the timer's.
 */
final class DispatchGates {
    private static final class Gate {
        int running;
        int limit = 1;
        TokenBucket bucket; // null: no rate limit
        boolean drainPlanned;
        final ArrayDeque<PendingSend> waiting = new ArrayDeque<>();

        void rate(RateShare rate, long now) {
            if (rate == null) {
                bucket = null;
            } else if (bucket == null) {
                bucket = new TokenBucket(rate.perSecond(), rate.burst(), now);
            } else if (bucket.perSecond() != rate.perSecond() || bucket.capacity() != rate.burst()) {
                bucket.reconfigure(rate.perSecond(), rate.burst(), now);
            }
        }

        /** A slot and a token, if both are free: the caller starts one attempt. */
        boolean mayStart(long now) {
            return running < limit && (bucket == null || bucket.tryTake(now));
        }
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DispatchGates.class);

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();
    private final Consumer<PendingSend> admitted;
    private final TaskScheduler timer;
    /**
     * The attempts this thread is admitting, while it admits them: an admission that ends at once
     * (an attempt given back, withheld) releases its slot, which admits the next waiting one; done
     * by recursion, a queue of thousands behind a slow receiver would overflow the stack. The
     * innermost call adds to the outermost's list instead.
     */
    private final ThreadLocal<java.util.ArrayDeque<PendingSend>> admitting = new ThreadLocal<>();

    /**
     * @param admitted gets each attempt once it holds a slot; it must end in {@link #release}
     * @param timer looks at a gate again when its next token is due
     */
    DispatchGates(Consumer<PendingSend> admitted, TaskScheduler timer) {
        this.admitted = admitted;
        this.timer = timer;
    }

    /** Admits the attempt now, or queues it until a delivery of its service ends or a token comes. */
    void submit(PendingSend send, int limit, RateShare rate) {
        String key = send.job().serviceKey();
        Gate gate = gates.computeIfAbsent(key, k -> new Gate());
        long now = timer.nanoTime();
        List<PendingSend> go;
        synchronized (gate) {
            gate.limit = limit;
            gate.rate(rate, now);
            if (gate.waiting.isEmpty() && gate.mayStart(now)) {
                gate.running++;
                go = List.of(send);
            } else {
                // behind those already waiting, in order; a limit raised since they queued lets
                // more of them start now
                gate.waiting.add(send);
                go = startable(key, gate, now);
            }
        }
        admitAll(go);
    }

    /** Hands each attempt to {@code admitted}, in order, iteratively (see {@link #admitting}). */
    private void admitAll(List<PendingSend> go) {
        if (go.isEmpty()) {
            return;
        }
        java.util.ArrayDeque<PendingSend> outer = admitting.get();
        if (outer != null) {
            outer.addAll(go); // an admission on this thread's stack admits them after its own
            return;
        }
        java.util.ArrayDeque<PendingSend> queue = new java.util.ArrayDeque<>(go);
        admitting.set(queue);
        try {
            PendingSend next;
            while ((next = queue.poll()) != null) {
                try {
                    admitted.accept(next);
                } catch (RuntimeException e) { // the others still go: one failure must not strand them
                    LOG.error(
                            "job {} attempt {}: admitting it failed",
                            next.job().id(),
                            next.job().attempts(),
                            e);
                }
            }
        } finally {
            admitting.remove();
        }
    }

    /**
     * Takes out of the queues the attempts that match (they hold no slot): the caller owns them.
     */
    List<PendingSend> removeWaiting(Predicate<PendingSend> which) {
        List<PendingSend> removed = new ArrayList<>();
        gates.forEach((key, gate) -> {
            synchronized (gate) {
                gate.waiting.removeIf(send -> which.test(send) && removed.add(send));
            }
        });
        return removed;
    }

    /** Deliveries under way per service key, now (services with none are left out). */
    java.util.Map<String, Integer> running() {
        java.util.Map<String, Integer> out = new java.util.TreeMap<>();
        gates.forEach((key, gate) -> {
            int n;
            synchronized (gate) {
                n = gate.running;
            }
            if (n > 0) {
                out.put(key, n);
            }
        });
        return out;
    }

    /** A delivery of the service ended (or was dropped): the next waiting ones take the free slots. */
    void release(String serviceKey) {
        Gate gate = gates.get(serviceKey);
        if (gate == null) {
            return;
        }
        List<PendingSend> go;
        long now = timer.nanoTime();
        synchronized (gate) {
            gate.running--;
            go = startable(serviceKey, gate, now);
        }
        admitAll(go);
    }

    /**
     * Takes the waiting attempts that may start now, in order, each holding a slot and a token; if
     * some still wait for a token, plans a look for when it comes. Holds the gate's lock.
     */
    private List<PendingSend> startable(String key, Gate gate, long now) {
        List<PendingSend> go = List.of();
        while (!gate.waiting.isEmpty() && gate.mayStart(now)) {
            if (go.isEmpty()) {
                go = new ArrayList<>(2);
            }
            gate.running++;
            go.add(gate.waiting.poll());
        }
        planDrain(key, gate, now);
        return go;
    }

    /**
     * Plans a look at the gate for when its next token is due, if attempts wait for one and no look
     * is planned. Holds the gate's lock.
     */
    private void planDrain(String key, Gate gate, long now) {
        if (gate.drainPlanned || gate.waiting.isEmpty() || gate.bucket == null || gate.running >= gate.limit) {
            return; // nothing waits for a token (a delivery that ends admits the next)
        }
        long waitNanos = gate.bucket.nanosUntilToken(now);
        if (waitNanos == Long.MAX_VALUE) {
            return; // a rate of 0 (no shard owned): the next submit or release looks again
        }
        gate.drainPlanned = true;
        timer.after(TimeUnit.NANOSECONDS.toMillis(waitNanos + 999_999), () -> drain(key, gate));
    }

    /** The timer's look: starts as many waiting attempts as slots and tokens allow. */
    private void drain(String key, Gate gate) {
        List<PendingSend> go;
        long now = timer.nanoTime();
        synchronized (gate) {
            gate.drainPlanned = false;
            go = startable(key, gate, now);
        }
        admitAll(go);
    }
}
