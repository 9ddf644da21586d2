package dev.hourglass.node.firing;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts deliveries under way per service, against the service's {@code maxInFlight}. Thread-safe. */
final class InFlightLimiter {
    private final ConcurrentHashMap<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();

    boolean tryAcquire(String serviceKey, int max) {
        AtomicInteger count = counts.computeIfAbsent(serviceKey, k -> new AtomicInteger());
        while (true) {
            int now = count.get();
            if (now >= max) {
                return false;
            }
            if (count.compareAndSet(now, now + 1)) {
                total.incrementAndGet();
                return true;
            }
        }
    }

    void release(String serviceKey) {
        AtomicInteger count = counts.get(serviceKey);
        if (count != null) {
            count.decrementAndGet();
            total.decrementAndGet();
        }
    }

    int total() {
        return total.get();
    }
}
