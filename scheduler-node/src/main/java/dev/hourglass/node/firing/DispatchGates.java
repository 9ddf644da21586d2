package dev.hourglass.node.firing;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Holds each service to its {@code maxInFlight} concurrent deliveries. A claimed job whose service
 * is at its limit waits here, in memory, for a delivery of that service to end; the claim limit
 * (twice {@code maxInFlight} per service, see {@link FiringEngine}) bounds how many wait, so a
 * wait is short compared to the jobs' timeouts. Thread-safe; sends run outside the gate's lock.
 */
final class DispatchGates {
    private static final class Gate {
        int running;
        final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    }

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();

    /** Runs {@code send} now, or when a delivery of the service ends. {@code send} must end in {@link #release}. */
    void submit(String serviceKey, int maxInFlight, Runnable send) {
        Gate gate = gates.computeIfAbsent(serviceKey, k -> new Gate());
        synchronized (gate) {
            if (gate.running >= maxInFlight) {
                gate.waiting.add(send);
                return;
            }
            gate.running++;
        }
        send.run();
    }

    /** A delivery of the service ended: the next waiting one, if any, takes its place. */
    void release(String serviceKey) {
        Gate gate = gates.get(serviceKey);
        if (gate == null) {
            return;
        }
        Runnable next;
        synchronized (gate) {
            next = gate.waiting.poll();
            if (next == null) {
                gate.running--;
            }
        }
        if (next != null) {
            next.run();
        }
    }
}
