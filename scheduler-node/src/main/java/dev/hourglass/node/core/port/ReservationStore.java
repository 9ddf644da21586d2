package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.Job;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Storage port of pull consumers (protocol PULL). A reservation is an attempt like any other: made
 * by a conditional update of the job row (DELAYED and due → RUNNING, attempt + 1, held by the
 * reserving node until its deadline), its start written at the reservation time (its execution-log row is written when it ends).
 * Two consumers, through any nodes, never hold the same attempt; the result goes through {@link
 * AttemptStore#record} like a consumer's report, and a deadline that passes is the timeout sweep's.
 */
public interface ReservationStore {

    /**
     * Reserves up to {@code max} ready jobs (DELAYED, due at or before {@code now}, not expired) of
     * the app's PULL {@code services}, taking each service's oldest first and the services in the
     * order given, never more than leaves a service's open reservations within its
     * {@code maxInFlight}, cluster-wide. Each reserved job is RUNNING with its new attempt until
     * {@code now + ttrMs} (null: its timeout, within the TTR's bounds). A job found past its expiry
     * on the way ends EXPIRED instead. A service that is not PULL (or gone) gives nothing. Each job
     * comes with the time it became due, for the node's lateness figures.
     */
    List<HeldJob> reserve(String app, List<String> services, int max, Long ttrMs, String node, long now);

    /**
     * Reserves ahead, for consumers waiting on this node: as {@link #reserve} for one service, but
     * the jobs due by {@code horizon}, not only by {@code now}. The node hands each out at its due
     * time, never before; each one's deadline is {@code max(due, now) + TTR + holdMs} (it may be
     * handed out up to {@code holdMs} after its due time, and its consumer still gets the whole
     * TTR), and its start says it was handed out at {@code max(due, now)}.
     */
    Ahead reserveAhead(
            String app, String service, int max, Long ttrMs, String node, long now, long horizon, long holdMs);

    /**
     * What a reserve ahead took, earliest due first, and whether it took every job of the service
     * due by its horizon as it read them: not when {@code max}, the service's {@code maxInFlight}
     * or its rate left some. The node counts on the reach only when it did.
     */
    record Ahead(List<HeldJob> jobs, boolean tookAllDue) {}

    /**
     * A reserved job (RUNNING, its new attempt) and when it is due: one reserved ahead is not handed
     * out before; one reserved at once was due then, and its lateness counts from it.
     */
    record HeldJob(Job job, long dueAt) {}

    /**
     * Gives back reservations made ahead and never handed out: each DELAYED again, due when it was,
     * with its attempt number taken back, so the next reserve makes the same
     * attempt. Conditional on the attempt being still this node's; returns how many were given back.
     */
    int giveBack(Collection<HeldJob> held, String node, long now);

    /**
     * The earliest due time of a DELAYED job of each of these services (keys {@code app/service});
     * a service without one is absent. One read for all: what a node's watcher of waiting consumers
     * asks, whatever the number of waiters.
     */
    Map<String, Long> nextDue(Collection<String> serviceKeys);

    /**
     * Moves the deadline of the job's reservation to {@code now + ttrMs}, but never past its
     * reservation time + {@code maxLifeMs}. Empty when {@code attempt} is not the job's current
     * RUNNING attempt (nothing changed); else the new deadline.
     */
    Optional<Long> touch(long jobId, int attempt, long ttrMs, long maxLifeMs, long now);

    /**
     * Per service (keys {@code app/service}): its ready jobs, its open reservations and the due time
     * of its oldest ready job, in one read; a service with neither is absent.
     */
    Map<String, Backlog> backlogs(Collection<String> serviceKeys, long now);

    /** @param oldestReadyDueAt null when none is ready */
    record Backlog(long ready, long reserved, Long oldestReadyDueAt) {}

    /** The service's queue now, and its next {@code peek} ready jobs (oldest first) unreserved. */
    QueueView queue(String app, String service, int peek, long now);

    /**
     * @param ready DELAYED and due
     * @param reserved RUNNING (reserved and not answered yet)
     * @param delayed DELAYED and not due yet
     * @param oldestReadyDueAt the due time of the oldest ready job, or null when none is ready
     */
    record QueueView(long ready, long reserved, long delayed, Long oldestReadyDueAt, List<Job> next) {}
}
