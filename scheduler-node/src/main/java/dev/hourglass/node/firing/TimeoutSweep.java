package dev.hourglass.node.firing;

import dev.hourglass.node.background.PeriodicTask;
import dev.hourglass.node.core.job.AttemptEndings;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AttemptStore;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.shard.ShardOwnership;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Ends the RUNNING attempts of the owned shards that nobody will answer for:
 *
 * <ul>
 *   <li>past their deadline ({@code max(fireAt, claim) + timeoutMs}) and not being delivered by this
 *       node: TIMEOUT, retried with backoff — this is also how any lost attempt is delivered again;
 *   <li>owned by a node that is no longer in the cluster (killed: its session expired), or by this
 *       node in an earlier life (restarted with the same id): the owner will never write their
 *       result, so they are ended at once and retried now, instead of waiting out their timeout.
 *       This is what bounds failover by the session timeout rather than the jobs' timeouts. Looked
 *       for only for a while after something changed (a node left, this node gained shards or
 *       started): the query reads every RUNNING job of the owned shards. CONSUMER-mode attempts are
 *       left to their timeout: their result comes from the consumer, not from the node.
 * </ul>
 *
 * Either result is conditional on the attempt being still RUNNING with its number, so a node that
 * answers after all changes nothing twice.
 *
 * <p>An attempt held by another node that may be alive is ended only {@value
 * #OTHER_HOLDER_ALLOWANCE_MS} ms after its deadline: its holder sends from memory, without reading
 * the database at the send, and sends nothing with less than a second (or half its timeout) of
 * its deadline left by its own clock, so the two nodes' clocks may disagree by that much plus this
 * allowance before an attempt could be ended here while its holder still sends it.
 */
final class TimeoutSweep implements PeriodicTask {
    /** After a change, orphans are looked for during this long (the new owner may load late). */
    static final long ORPHAN_WATCH_MS = 10_000;
    /**
     * A run pages through everything stale (after a failover, thousands of a dead node's attempts
     * at once), up to this many pages; what is left waits for the next run.
     */
    private static final int MAX_PAGES_PER_RUN = 20;
    /** How long past its deadline another node's attempt is left to that node (clock skew). */
    static final long OTHER_HOLDER_ALLOWANCE_MS = 2_000;

    private final AttemptStore store;
    private final ServiceLookup catalog;
    private final ShardOwnership shards;
    private final Clock clock;
    private final Supplier<Set<String>> liveNodes;
    private final String nodeId;
    private final long startedAt;
    private final BiPredicate<Long, Integer> answeredHere;
    private final Consumer<AttemptResult> results;
    private final int limit;
    private volatile long watchOrphansUntil;

    TimeoutSweep(
            AttemptStore store,
            ServiceLookup catalog,
            ShardOwnership shards,
            Clock clock,
            ClusterContext cluster,
            BiPredicate<Long, Integer> answeredHere,
            Consumer<AttemptResult> results,
            int limit) {
        this.store = store;
        this.catalog = catalog;
        this.shards = shards;
        this.clock = clock;
        this.liveNodes = cluster.liveNodes();
        this.nodeId = cluster.nodeId();
        this.startedAt = clock.millis();
        this.answeredHere = answeredHere;
        this.results = results;
        this.limit = limit;
        this.watchOrphansUntil = startedAt + ORPHAN_WATCH_MS;
    }

    /** A node left, or this node gained shards: look for orphaned attempts for a while. */
    void watchOrphans() {
        watchOrphansUntil = clock.millis() + ORPHAN_WATCH_MS;
    }

    @Override
    public String name() {
        return "timeout sweep";
    }

    @Override
    public void run() {
        if (!shards.leaseHeld()) {
            return; // out of touch with the cluster: these shards may be another node's by now
        }
        long now = clock.millis();
        Set<String> live = null;
        if (now <= watchOrphansUntil) {
            live = new HashSet<>(liveNodes.get());
            live.add(nodeId);
        }
        AttemptStore.Orphans orphans = live == null ? null : new AttemptStore.Orphans(live, nodeId, startedAt);
        long afterId = Long.MIN_VALUE;
        for (int page = 0; page < MAX_PAGES_PER_RUN && shards.leaseHeld(); page++) {
            List<Job> stale = store.findStale(shards.current(), now, orphans, afterId, limit);
            for (Job job : stale) {
                end(job, now, live);
            }
            if (stale.size() < limit) {
                return;
            }
            afterId = stale.get(stale.size() - 1).id();
        }
    }

    private void end(Job job, long now, Set<String> live) {
        if (answeredHere.test(job.id(), job.attempts())) {
            return; // our own delivery is under way and will report, or its result waits to be written
        }
        Optional<ServiceDefinition> service = catalog.find(job.app(), job.service());
        if (job.dueAt() + allowanceFor(job, live) <= now) {
            Backoff backoff = service.map(ServiceDefinition::backoff).orElse(Backoff.DEFAULT);
            boolean reserved = service.map(s -> s.protocol() == Protocol.PULL).orElse(false);
            results.accept(
                    reserved
                            ? AttemptEndings.reservationLapsed(job, backoff, now)
                            : AttemptEndings.timedOut(job, backoff, now));
        } else if (isOrphan(job, live)
                && service.map(s -> s.ackMode() == AckMode.AUTO).orElse(true)) {
            results.accept(AttemptEndings.ownerLost(job, now));
        }
    }

    private long allowanceFor(Job job, Set<String> live) {
        boolean othersMaybeLive = job.ownerNode() != null
                && !job.ownerNode().equals(nodeId)
                && (live == null || live.contains(job.ownerNode()));
        return othersMaybeLive ? OTHER_HOLDER_ALLOWANCE_MS : 0;
    }

    private boolean isOrphan(Job job, Set<String> live) {
        if (live == null || job.ownerNode() == null) {
            return false;
        }
        return !live.contains(job.ownerNode()) || (job.ownerNode().equals(nodeId) && job.updatedAt() < startedAt);
    }
}
