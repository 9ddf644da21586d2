package dev.hourglass.node.firing;

import dev.hourglass.node.core.timeindex.IndexEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * How many jobs of each service may be claimed and not yet ended: none while it is paused, else
 * twice this node's share of its {@code maxInFlight} (one window delivering, one claimed ahead and
 * waiting at its gate; less under a rate limit, see {@code FiringEngine.claimBoundOf}), so claims
 * stay large batches while the receiver sees at most {@code maxInFlight} deliveries at once across
 * the cluster.
 *
 * <p>A due job of a paused service is not held at all: it stays DELAYED in the database, the
 * catch-up sweep leaves its service out while paused, and the one the resume runs reads it — a
 * long pause must not fill the memory other services' jobs are loaded into.
 *
 * <p>A due job whose service is full is parked here, out of the fire-time index, instead of being
 * put back and polled again every few milliseconds: under a burst that would spin the firing
 * thread over the same thousands of entries. Parked jobs go back to the index in chunks (a quarter
 * of the service's capacity) as its deliveries end, so the next claim is a batch, not a trickle,
 * and in due order: a job that comes back late (given back unsent, found by the catch-up sweep)
 * goes before the later jobs parked meanwhile instead of behind all of them.
 * The database is untouched by parking: a parked job is still DELAYED and due. A job is parked at
 * most once (a second offer of it — the catch-up sweep reading it again — replaces nothing), and
 * the services with parked jobs are {@linkplain #saturated() named}, so the catch-up sweep does not
 * look for more of their jobs while memory already holds more than they can take.
 *
 * <p>Thread-safe: per-service state is guarded by its own lock; re-offers run outside it.
 */
final class ServiceCapacity {
    /** Parked jobs go back in due order: the oldest first, however late it was parked. */
    private static final Comparator<IndexEntry> DUE_ORDER =
            Comparator.comparingLong(IndexEntry::dueAt).thenComparingLong(IndexEntry::jobId);

    private static final class Slots {
        int claimed;
        final Map<Long, IndexEntry> parked = new HashMap<>();
        final TreeSet<IndexEntry> parkedByDue = new TreeSet<>(DUE_ORDER);

        void park(IndexEntry e) {
            parked.put(e.jobId(), e);
            parkedByDue.add(e);
        }

        IndexEntry unparkFirst() {
            IndexEntry e = parkedByDue.pollFirst();
            parked.remove(e.jobId());
            return e;
        }
    }

    private final Map<String, Slots> byService = new ConcurrentHashMap<>();
    private final ToIntFunction<String> boundOf;
    private final Consumer<List<IndexEntry>> reoffer;

    /**
     * @param boundOf how many jobs of the service may be claimed and not ended: twice this node's
     *     share of its {@code maxInFlight}, or 0 while it is paused (its jobs all wait parked)
     * @param reoffer takes parked jobs back into the fire-time index
     */
    ServiceCapacity(ToIntFunction<String> boundOf, Consumer<List<IndexEntry>> reoffer) {
        this.boundOf = boundOf;
        this.reoffer = reoffer;
    }

    /** Returns the entries that may be claimed now, holding a slot for each; parks the others. */
    List<IndexEntry> admit(List<IndexEntry> due) {
        List<IndexEntry> ready = new ArrayList<>(due.size());
        for (IndexEntry e : due) {
            int cap = capacityOf(e.serviceKey());
            Slots s = byService.computeIfAbsent(e.serviceKey(), k -> new Slots());
            synchronized (s) {
                if (s.parked.containsKey(e.jobId())) {
                    continue; // parked already: this is the same job read again
                }
                if (s.claimed < cap) {
                    s.claimed++;
                    ready.add(e);
                } else if (cap > 0) {
                    s.park(e);
                } // paused: not held at all; it waits in the database, and the catch-up after the resume reads it
            }
        }
        return ready;
    }

    /** Whether the job waits here for its service. */
    boolean isParked(IndexEntry e) {
        Slots s = byService.get(e.serviceKey());
        if (s == null) {
            return false;
        }
        synchronized (s) {
            return s.parked.containsKey(e.jobId());
        }
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
            back = unparkAsRoomAllows(s, cap);
        }
        if (back != null) {
            reoffer.accept(back);
        }
    }

    /**
     * The bounds may have changed (a service resumed, its limit raised): parked jobs go back as far
     * as each service's bound now allows. Without this, jobs parked while their service was paused
     * would wait for a delivery of it to end, and none is under way.
     */
    void reconsider() {
        byService.forEach((key, s) -> {
            int cap = capacityOf(key);
            List<IndexEntry> back;
            synchronized (s) {
                if (cap == 0) { // paused: what waited here waits in the database instead
                    s.parked.clear();
                    s.parkedByDue.clear();
                }
                back = unparkAsRoomAllows(s, cap);
            }
            if (back != null) {
                reoffer.accept(back);
            }
        });
    }

    /** Parked jobs that fit now, in chunks of a quarter of the bound; null if none. Holds s's lock. */
    private static List<IndexEntry> unparkAsRoomAllows(Slots s, int cap) {
        int free = cap - s.claimed;
        int chunk = Math.min(s.parked.size(), Math.max(1, cap / 4));
        if (chunk <= 0 || free < chunk) {
            return null;
        }
        List<IndexEntry> back = new ArrayList<>(free);
        while (back.size() < free && !s.parked.isEmpty()) {
            back.add(s.unparkFirst());
        }
        return back;
    }

    /** Drops parked jobs of shards this node no longer owns. */
    void dropShards(Set<Integer> kept) {
        for (Slots s : byService.values()) {
            synchronized (s) {
                s.parked.values().removeIf(e -> !kept.contains(e.shard()));
                s.parkedByDue.removeIf(e -> !kept.contains(e.shard()));
            }
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

    /** The services with jobs parked, most parked first, at most {@code max} of them. */
    Set<String> saturated(int max) {
        List<Map.Entry<String, Integer>> counts = new ArrayList<>();
        byService.forEach((key, s) -> {
            synchronized (s) {
                if (!s.parked.isEmpty()) {
                    counts.add(Map.entry(key, s.parked.size()));
                }
            }
        });
        counts.sort(Map.Entry.<String, Integer>comparingByValue().reversed());
        Set<String> out = new java.util.LinkedHashSet<>();
        counts.stream().limit(max).forEach(e -> out.add(e.getKey()));
        return out;
    }

    private int capacityOf(String serviceKey) {
        return Math.max(0, boundOf.applyAsInt(serviceKey));
    }
}
