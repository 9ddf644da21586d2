package dev.hourglass.node.firing;

import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.DuePage;
import dev.hourglass.node.core.port.DuePage.Cursor;
import dev.hourglass.node.core.shard.ShardOwnership;
import dev.hourglass.node.core.timeindex.FireTimeIndex;
import dev.hourglass.node.core.timeindex.IndexEntry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the fire-time index filled with the owned shards' jobs due within the load window.
 *
 * <p>Cursors: for each owned shard, every DELAYED job up to its cursor — a position in
 * {@code (dueAt, id)} order — has been read into the index (or was displaced by the capacity bound,
 * which moves the cursor back before it). {@link #extend()} reads each shard only after its cursor,
 * so each job is read once, not once per tick; and because the cursor is a pair, a read moves past
 * any number of jobs due at the same millisecond (a cursor of due time alone cannot: a page full of
 * one due time would leave it where it was). Jobs that enter the loaded range later — submitted,
 * rescheduled or retried by this node — are handed to {@link #admit} at once, so they fire on time
 * rather than a window later.
 *
 * <p>The catch-up sweep ({@link #catchUp()}) re-reads what is due now or within the next sweep and
 * adds what memory misses (jobs changed by another node or by a node that owns no shard, a failed
 * write, an earlier crash). It leaves out the services whose due jobs memory holds more of than
 * they can take (see {@link ServiceCapacity#saturated}): otherwise one service's backlog of
 * thousands of overdue jobs, parked in memory behind a slow receiver, would fill every sweep's
 * page and hide another service's missed job for as long as the backlog lasts. For those services
 * it reads instead each shard's {@value #OLDEST_OVERDUE_PER_SHARD} oldest overdue jobs: a job of a
 * full service that is not in memory (given back unsent while it waited at the service's gate, or
 * made due again through another node) would otherwise wait, however overdue, until the service
 * is no longer full, while the later jobs held in memory fire — under a steady overload, until it
 * expires.
 *
 * <p>Thread-safety: {@code extend} and {@code catchUp} run one at a time (the loader's lock, held
 * across their reads); cursor updates take a second lock that is never held across I/O, so
 * {@code admit}, {@code offer} and ownership changes never wait for the database.
 */
public final class WindowLoader {
    private static final Logger LOG = LoggerFactory.getLogger(WindowLoader.class);
    /** At most this many saturated services are left out of a catch-up read (their SQL grows). */
    static final int MAX_SKIPPED_SERVICES = 50;
    /**
     * Per shard, how many of its oldest overdue jobs the catch-up sweep reads for the services it
     * otherwise leaves out: enough to find the few that fell out of memory (given back unsent, or
     * made due again by another node) without reading a saturated service's whole backlog.
     */
    static final int OLDEST_OVERDUE_PER_SHARD = 4;

    private final AttemptStore store;
    private final FireTimeIndex index;
    private final ShardOwnership shards;
    private final Clock clock;
    private final EngineSettings settings;
    private final IntSupplier heldOutsideIndex;
    private final Supplier<Set<String>> saturatedServices;
    private final Supplier<Set<String>> pausedServices;
    private final Predicate<IndexEntry> heldOutside;
    private final Supplier<Set<String>> pulledServiceKeys;
    private final Consumer<IndexEntry> pulledDue;
    private final Object cursorLock = new Object();
    private final Map<Integer, Cursor> cursors = new HashMap<>(); // guarded by cursorLock
    /**
     * Held by the catch-up across its test of {@code heldOutside} and its offer of one job, and by
     * the claim round ({@code FiringEngine}) from its poll of the index to its mark of the jobs it
     * hands to a claimer: a re-read then finds a job in the index or in a claim, never between (in
     * either gap it offered a job a claim had in hand again, and the next claim waited on the first
     * one's row locks). Memory only (a service the round does not know yet is read once under it).
     */
    final Object handOff = new Object();

    /**
     * @param heldOutsideIndex due jobs held in memory outside the index (parked while their service
     *     is full); they count against the index's capacity, so memory stays bounded by it
     * @param heldOutside whether a job is held outside the index (parked, or in a claim under way): catch-up leaves it there
     * @param saturatedServices services with jobs parked: catch-up does not read more of theirs
     * @param pausedServices paused services: catch-up does not read their jobs (they wait in the
     *     database until the resume, which runs a catch-up)
     * @param pulledServiceKeys the PULL services (keys): their jobs are their consumers', never read
     *     or held here
     * @param pulledDue hears of a PULL job this node made due, instead of the index
     */
    public WindowLoader(
            AttemptStore store,
            FireTimeIndex index,
            ShardOwnership shards,
            Clock clock,
            EngineSettings settings,
            IntSupplier heldOutsideIndex,
            Predicate<IndexEntry> heldOutside,
            Supplier<Set<String>> saturatedServices,
            Supplier<Set<String>> pausedServices,
            Supplier<Set<String>> pulledServiceKeys,
            Consumer<IndexEntry> pulledDue) {
        this.store = store;
        this.index = index;
        this.shards = shards;
        this.clock = clock;
        this.settings = settings;
        this.heldOutsideIndex = heldOutsideIndex;
        this.heldOutside = heldOutside;
        this.saturatedServices = saturatedServices;
        this.pausedServices = pausedServices;
        this.pulledServiceKeys = pulledServiceKeys;
        this.pulledDue = pulledDue;
    }

    /** WindowLoader with nothing held outside the index (tests of the loader alone). */
    public WindowLoader(
            AttemptStore store,
            FireTimeIndex index,
            ShardOwnership shards,
            Clock clock,
            EngineSettings settings,
            IntSupplier heldOutsideIndex) {
        this(store, index, shards, clock, settings, heldOutsideIndex, e -> false, Set::of, Set::of, Set::of, e -> {});
    }

    /** Every owned shard's jobs due before this have been read: the least cursor's due time. */
    public long watermark() {
        synchronized (cursorLock) {
            long least = Long.MAX_VALUE;
            for (int shard : shards.current()) {
                Cursor c = cursors.getOrDefault(shard, Cursor.START);
                // after (d, MAX) every job due at d was read too
                least = Math.min(least, c.jobId() == Long.MAX_VALUE ? c.dueAt() + 1 : c.dueAt());
            }
            return least == Long.MAX_VALUE ? Long.MIN_VALUE : least;
        }
    }

    /** Whether a job due at {@code dueAt} belongs in memory now (the placement rule asks this). */
    public boolean isWithinWindow(long dueAt) {
        return dueAt < Math.max(watermark(), clock.millis() + settings.loadIntervalMs());
    }

    /** Puts a job this node just made due into memory when it falls in the loaded range. */
    public void admit(IndexEntry entry) {
        if (pulledServices().contains(entry.serviceKey())) {
            pulledDue.accept(entry); // whichever shard it is on: this node's consumers want it
            return;
        }
        if (shards.owns(entry.shard()) && isWithinWindow(entry.dueAt())) {
            offer(entry);
        }
    }

    /**
     * Into the index; whatever the capacity bound leaves out moves its shard's cursor back before
     * it, so it is read again later. The one way into the index.
     */
    public void offer(IndexEntry entry) {
        if (pulledServices().contains(entry.serviceKey())) {
            return; // its consumers reserve it from the database
        }
        IndexEntry displaced = index.offer(entry);
        if (displaced != null) {
            moveBack(displaced);
        }
    }

    private void moveBack(IndexEntry e) {
        Cursor before = Cursor.before(e.dueAt(), e.jobId());
        synchronized (cursorLock) {
            cursors.computeIfPresent(e.shard(), (s, c) -> before.compareTo(c) < 0 ? before : c);
        }
    }

    /** Reads every owned shard after its cursor up to now + window, as far as capacity allows. */
    public synchronized void extend() {
        long target = clock.millis() + settings.loadWindowMs();
        Cursor end = Cursor.before(target, Long.MIN_VALUE); // all due before target read
        while (true) {
            int room = index.capacity() - index.size() - heldOutsideIndex.getAsInt();
            Map<Integer, Cursor> behind = new HashMap<>();
            synchronized (cursorLock) {
                for (int shard : shards.current()) {
                    Cursor c = cursors.computeIfAbsent(shard, s -> Cursor.START);
                    if (c.compareTo(end) < 0) {
                        behind.put(shard, c);
                    }
                }
            }
            if (room <= 0 || behind.isEmpty()) {
                return;
            }
            int perShard = Math.max(1, Math.min(room, settings.claimBatch() * 4) / behind.size());
            List<IndexEntry> loaded = store.loadDue(new DuePage(behind, target, perShard, pulledServicesToSkip()));
            Map<Integer, List<IndexEntry>> byShard = new HashMap<>();
            loaded.forEach(e ->
                    byShard.computeIfAbsent(e.shard(), s -> new ArrayList<>()).add(e));
            List<IndexEntry> displaced = new ArrayList<>();
            Set<String> pulled = pulledServices();
            for (IndexEntry e : loaded) {
                if (pulled.contains(e.serviceKey())) {
                    continue; // one of the PULL services beyond those the SQL leaves out (the cursor still moves past
                    // it)
                }
                IndexEntry out = index.offer(e);
                if (out != null) {
                    displaced.add(out);
                }
            }
            synchronized (cursorLock) {
                behind.forEach((shard, readFrom) -> {
                    List<IndexEntry> rows = byShard.getOrDefault(shard, List.of());
                    IndexEntry last = rows.isEmpty() ? null : rows.get(rows.size() - 1);
                    Cursor advanced = rows.size() < perShard ? end : new Cursor(last.dueAt(), last.jobId());
                    Cursor now = cursors.get(shard);
                    if (now == null) {
                        return; // the shard was given up meanwhile
                    }
                    // moved back by an offer while this page was read: keep the earlier position
                    cursors.put(shard, now.compareTo(readFrom) < 0 ? now : advanced);
                });
            }
            displaced.forEach(this::moveBack);
            if (loaded.isEmpty()) {
                return;
            }
        }
    }

    /** The PULL services' keys, left out of every read: the engine never holds their jobs. */
    private Set<String> pulledServices() {
        return pulledServiceKeys.get();
    }

    /**
     * The PULL services a read leaves out in its SQL: at most {@link #MAX_SKIPPED_SERVICES} of them
     * (the statement grows with each); jobs of the others are read and dropped by {@link #offer}.
     */
    private Set<String> pulledServicesToSkip() {
        Set<String> all = pulledServices();
        return all.size() <= MAX_SKIPPED_SERVICES
                ? all
                : all.stream().sorted().limit(MAX_SKIPPED_SERVICES).collect(java.util.stream.Collectors.toSet());
    }

    /**
     * Re-reads the jobs due before now + one sweep interval and puts them in memory at their stored
     * due time: adds those memory misses, and moves those memory holds at another time (a job
     * rescheduled earlier through another node). Leaves alone what is held outside memory: parked,
     * or in a claim under way. A job a claim holds is still DELAYED in the database until that claim
     * commits; offered again, it went into the next claim, which waited on the first one's row
     * locks. With the first claim waiting on a row a node cut off the database held locked (until
     * the link healed), each re-read after a hand-off put another claimer behind it, until all of
     * the node's claimers waited and it fired nothing (PartitionIT, docs/cluster.md).
     */
    public synchronized int catchUp() {
        List<Integer> owned = shards.current();
        if (owned.isEmpty()) {
            return 0;
        }
        long until = clock.millis() + settings.catchUpIntervalMs() + settings.loadIntervalMs();
        Map<Integer, Cursor> fromStart = new HashMap<>();
        owned.forEach(s -> fromStart.put(s, Cursor.START));
        int perShard = Math.max(32, settings.claimBatch() * 4 / owned.size());
        Set<String> paused = pausedServices.get();
        Set<String> saturated = new HashSet<>(saturatedServices.get());
        saturated.removeAll(paused);
        Set<String> skipped = new HashSet<>(saturated);
        skipped.addAll(paused);
        skipped.addAll(pulledServicesToSkip());
        List<IndexEntry> due = new ArrayList<>(store.loadDue(new DuePage(fromStart, until, perShard, skipped)));
        if (!saturated.isEmpty()) {
            due.addAll(store.loadDue(
                    new DuePage(fromStart, clock.millis() + 1, OLDEST_OVERDUE_PER_SHARD, Set.of(), saturated)));
        }
        int added = 0;
        Set<String> pulled = pulledServices();
        for (IndexEntry e : due) {
            if (pulled.contains(e.serviceKey())) {
                continue;
            }
            boolean known;
            IndexEntry displaced;
            synchronized (handOff) { // not between the round's poll and its mark: see handOff
                if (heldOutside.test(e)) {
                    continue;
                }
                known = index.contains(e.jobId());
                displaced = index.offer(e);
            }
            if (!known && displaced != e) {
                added++;
            }
            if (displaced != null) {
                moveBack(displaced);
            }
        }
        if (added > 0) {
            LOG.debug("catch-up sweep added {} due jobs to memory", added);
        }
        return added;
    }

    /**
     * The owned shards changed: cursors of shards given up are forgotten (their jobs left memory),
     * gained shards start from the beginning. Never waits for a read under way.
     */
    public void shardsChanged(List<Integer> owned) {
        synchronized (cursorLock) {
            cursors.keySet().retainAll(Set.copyOf(owned));
        }
    }
}
