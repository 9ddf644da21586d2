package dev.hourglass.node.firing;

import dev.hourglass.node.shard.ShardOwnership;
import dev.hourglass.node.timeindex.FireTimeIndex;
import dev.hourglass.node.timeindex.IndexEntry;
import java.time.Clock;
import java.util.List;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the fire-time index filled with the owned shards' jobs due within the load window.
 *
 * <p>The watermark: every DELAYED job of an owned shard due before {@link #watermark()} has been
 * read into the index (or was displaced by the capacity bound, which lowers the watermark again).
 * {@link #extend()} reads only [watermark, now + window), so each job is read once, not once per
 * tick. Jobs that enter the loaded range later — submitted, rescheduled or retried by this node —
 * are handed to {@link #admit} at once, so they fire on time rather than a window later. The
 * catch-up sweep ({@link #catchUp()}) re-reads what is due now or within the next sweep interval
 * and adds what memory misses (jobs changed by another node, a failed write, an earlier crash), so
 * nothing due is ever left behind.
 *
 * <p>Thread-safety: {@code extend}, {@code catchUp} and {@code resetWatermark} run under the
 * loader's lock; {@code admit} and {@code watermark} are lock-free.
 */
public final class WindowLoader {
    private static final Logger LOG = LoggerFactory.getLogger(WindowLoader.class);

    private final AttemptStore store;
    private final FireTimeIndex index;
    private final ShardOwnership shards;
    private final Clock clock;
    private final EngineSettings settings;
    private final IntSupplier heldOutsideIndex;
    private volatile long watermark = Long.MIN_VALUE;

    /**
     * @param heldOutsideIndex due jobs held in memory outside the index (parked while their service
     *     is full); they count against the index's capacity, so memory stays bounded by it
     */
    public WindowLoader(
            AttemptStore store,
            FireTimeIndex index,
            ShardOwnership shards,
            Clock clock,
            EngineSettings settings,
            IntSupplier heldOutsideIndex) {
        this.store = store;
        this.index = index;
        this.shards = shards;
        this.clock = clock;
        this.settings = settings;
        this.heldOutsideIndex = heldOutsideIndex;
    }

    public long watermark() {
        return watermark;
    }

    /** Whether a job due at {@code dueAt} belongs in memory now (the placement rule asks this). */
    public boolean isWithinWindow(long dueAt) {
        return dueAt < Math.max(watermark, clock.millis() + settings.loadIntervalMs());
    }

    /** Puts a job this node just made due into memory when it falls in the loaded range. */
    public void admit(IndexEntry entry) {
        if (!shards.owns(entry.shard()) || !isWithinWindow(entry.dueAt())) {
            return;
        }
        IndexEntry displaced = index.offer(entry);
        if (displaced != null) {
            lowerWatermark(displaced.dueAt());
        }
    }

    private synchronized void lowerWatermark(long dueAt) {
        if (dueAt < watermark) {
            watermark = dueAt;
        }
    }

    /** Reads [watermark, now + window) into the index, as far as its capacity allows. */
    public synchronized void extend() {
        long target = clock.millis() + settings.loadWindowMs();
        List<Integer> owned = shards.current();
        while (watermark < target) {
            int room = index.capacity() - index.size() - heldOutsideIndex.getAsInt();
            if (room <= 0 || owned.isEmpty()) {
                return;
            }
            int limit = Math.min(room, settings.claimBatch() * 4);
            List<IndexEntry> loaded = store.loadDue(owned, watermark, target, limit);
            long reached = target;
            for (IndexEntry e : loaded) {
                IndexEntry displaced = index.offer(e);
                if (displaced != null) {
                    reached = Math.min(reached, displaced.dueAt());
                }
            }
            if (loaded.size() == limit) {
                // more remain: continue from the last one read (ties are read again; the index dedups)
                reached = Math.min(reached, loaded.get(loaded.size() - 1).dueAt());
                if (reached == watermark) {
                    return; // a whole page of one due time could not move the mark; try next tick
                }
            }
            watermark = reached;
            if (loaded.size() < limit) {
                return;
            }
        }
    }

    /**
     * Re-reads the jobs due before now + one sweep interval and puts them in memory at their stored
     * due time: adds those memory misses, and moves those memory holds at another time (a job
     * rescheduled earlier through another node).
     */
    public synchronized int catchUp() {
        long until = clock.millis() + settings.catchUpIntervalMs() + settings.loadIntervalMs();
        List<IndexEntry> due = store.loadDue(shards.current(), Long.MIN_VALUE, until, settings.claimBatch() * 4);
        int added = 0;
        for (IndexEntry e : due) {
            boolean known = index.contains(e.jobId());
            IndexEntry displaced = index.offer(e);
            if (!known && displaced != e) {
                added++;
            }
            if (displaced != null) {
                lowerWatermark(displaced.dueAt());
            }
        }
        if (added > 0) {
            LOG.debug("catch-up sweep added {} due jobs to memory", added);
        }
        return added;
    }

    /** Forgets the loaded range (after a change of owned shards), so the next extend reads it anew. */
    public synchronized void resetWatermark() {
        watermark = Long.MIN_VALUE;
    }
}
