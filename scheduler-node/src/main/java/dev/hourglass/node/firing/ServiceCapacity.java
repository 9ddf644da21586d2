package dev.hourglass.node.firing;

import dev.hourglass.node.timeindex.IndexEntry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * How many jobs of each service may be claimed and not yet ended: twice its {@code maxInFlight}
 * (one window delivering, one claimed ahead and waiting at its gate), so claims stay large
 * batches while the receiver sees at most {@code maxInFlight} deliveries at once.
 *
 * <p>A due job whose service is full is parked here, out of the fire-time index, instead of being
 * put back and polled again every few milliseconds: under a burst that would spin the firing
 * thread over the same thousands of entries. Parked jobs go back to the index in chunks (a quarter
 * of the service's capacity) as its deliveries end, so the next claim is a batch, not a trickle.
 * The database is untouched by parking: a parked job is still DELAYED and due, and the catch-up
 * sweep would find it even if this node forgot it.
 *
 * <p>Thread-safe: per-service state is guarded by its own lock; re-offers run outside it.
 */
final class ServiceCapacity {
    private static final class Slots {
        int claimed;
        final ArrayDeque<IndexEntry> parked = new ArrayDeque<>();
    }

    private final Map<String, Slots> byService = new ConcurrentHashMap<>();
    private final ToIntFunction<String> maxInFlightOf;
    private final Consumer<List<IndexEntry>> reoffer;

    ServiceCapacity(ToIntFunction<String> maxInFlightOf, Consumer<List<IndexEntry>> reoffer) {
        this.maxInFlightOf = maxInFlightOf;
        this.reoffer = reoffer;
    }

    /** Returns the entries that may be claimed now, holding a slot for each; parks the others. */
    List<IndexEntry> admit(List<IndexEntry> due) {
        List<IndexEntry> ready = new ArrayList<>(due.size());
        for (IndexEntry e : due) {
            int cap = capacityOf(e.serviceKey());
            Slots s = byService.computeIfAbsent(e.serviceKey(), k -> new Slots());
            synchronized (s) {
                if (s.claimed < cap) {
                    s.claimed++;
                    ready.add(e);
                } else {
                    s.parked.add(e);
                }
            }
        }
        return ready;
    }

    /** A job of the service ended (or was not claimed after all): frees its slot. */
    void release(String serviceKey) {
        Slots s = byService.get(serviceKey);
        if (s == null) {
            return;
        }
        int cap = capacityOf(serviceKey);
        List<IndexEntry> back = null;
        synchronized (s) {
            s.claimed--;
            int free = cap - s.claimed;
            int chunk = Math.min(s.parked.size(), Math.max(1, cap / 4));
            if (chunk > 0 && free >= chunk) {
                back = new ArrayList<>(free);
                while (back.size() < free && !s.parked.isEmpty()) {
                    back.add(s.parked.poll());
                }
            }
        }
        if (back != null) {
            reoffer.accept(back);
        }
    }

    int parked() {
        int n = 0;
        for (Slots s : byService.values()) {
            synchronized (s) {
                n += s.parked.size();
            }
        }
        return n;
    }

    private int capacityOf(String serviceKey) {
        return 2 * Math.max(1, maxInFlightOf.applyAsInt(serviceKey));
    }
}
