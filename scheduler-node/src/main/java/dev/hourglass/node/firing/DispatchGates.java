package dev.hourglass.node.firing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Holds each service to its share of {@code maxInFlight} concurrent deliveries. A claimed attempt
 * whose service is at its limit waits here, in memory, for a delivery of that service to end; the
 * claim bound (twice the share per service, see {@link ServiceCapacity}) bounds how many wait.
 *
 * <p>Thread-safe; the {@code admitted} callback runs outside the gate's lock, on the thread that
 * submitted or released.
 */
final class DispatchGates {
    private static final class Gate {
        int running;
        final ArrayDeque<PendingSend> waiting = new ArrayDeque<>();
    }

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();
    private final Consumer<PendingSend> admitted;

    /** @param admitted gets each attempt once it holds a slot; it must end in {@link #release} */
    DispatchGates(Consumer<PendingSend> admitted) {
        this.admitted = admitted;
    }

    /** Admits the attempt now, or queues it until a delivery of its service ends. */
    void submit(PendingSend send, int limit) {
        Gate gate = gates.computeIfAbsent(send.job().serviceKey(), k -> new Gate());
        synchronized (gate) {
            if (gate.running >= limit) {
                gate.waiting.add(send);
                return;
            }
            gate.running++;
        }
        admitted.accept(send);
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

    /** A delivery of the service ended (or was dropped): the next waiting one takes its slot. */
    void release(String serviceKey) {
        Gate gate = gates.get(serviceKey);
        if (gate == null) {
            return;
        }
        PendingSend next;
        synchronized (gate) {
            next = gate.waiting.poll();
            if (next == null) {
                gate.running--;
            }
        }
        if (next != null) {
            admitted.accept(next);
        }
    }
}
