package dev.hourglass.node.pull;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.ReserveRequest;
import dev.hourglass.node.background.Lifecycle;
import dev.hourglass.node.background.TaskScheduler;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.JobReads;
import dev.hourglass.node.core.port.PullListener;
import dev.hourglass.node.core.port.PulledJobSignals;
import dev.hourglass.node.core.port.ReservationStore;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.PullLimits;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reserve of pull consumers (docs/api.md, "Pull consumers"), with its long poll.
 *
 * <p>A reserve without a wait goes to the database at once. One with a wait waits here from the
 * start, holding no thread (the front door answers when the future completes), registered under
 * each service it asked for; its first reserve runs on a reserving thread, unless its services
 * were all found empty within the last watch interval. What wakes it later costs per node and
 * service, not per waiter:
 *
 * <ul>
 *   <li>this node made a job of the service due (a submit or retry through it, a result, a lapsed
 *       reservation of one of its shards): {@link #due} keeps the job's due time, and each such
 *       time is a wake in turn, from memory — the path of a job submitted through the node its
 *       consumer waits on;
 *   <li>the watcher: while a service has waiters, every {@code watchIntervalMs} one read of the
 *       next due time of every watched service (one statement, whatever the number of waiters and
 *       services) plans a wake at each — the path of a job made due through another node.
 * </ul>
 *
 * A wake serves the service's waiters in arrival order, each with a reserve of its own services in
 * its order, until one gets fewer than it asked for (what is ready is then taken), {@value #MAX_SERVED_PER_TURN}
 * per turn. One wake per service runs at a time, on the reserving threads; a waiter whose wait ran out while it was being served gets what
 * was reserved for it rather than an empty answer, so no reservation is made for nobody.
 */
public final class PullConsumers implements PulledJobSignals {
    private static final Logger LOG = LoggerFactory.getLogger(PullConsumers.class);

    /**
     * @param watchIntervalMs how often the next due time of the services with waiters is read: the
     *     bound on how late a job made due through another node reaches a waiter here
     * @param maxWaiting waiting reserves this node holds at most; one more is RATE_LIMITED
     * @param reserveAheadMs how long before its due time a job is reserved for the waiters here
     *     (then handed out at its due time from memory; the reserve reaches twice as far); 0: jobs
     *     are reserved once due only
     * @param holdMs how long past its due time (or past its reservation, if it was due already) a
     *     job reserved ahead waits here for a waiter before it is given back; its deadline counts
     *     from then plus this
     */
    public record Settings(long watchIntervalMs, int maxWaiting, long reserveAheadMs, long holdMs) {
        public static final Settings DEFAULTS = new Settings(100, 10_000, 100, 200);

        /** No reserving ahead: a job is reserved once due. */
        public Settings(long watchIntervalMs, int maxWaiting) {
            this(watchIntervalMs, maxWaiting, 0, 0);
        }
    }

    private final ReservationStore store;
    private final JobReads jobs;
    private final ServiceLookup services;
    private final String nodeId;
    private final TaskScheduler timers;
    private final TaskScheduler reservers;
    private final Settings settings;
    private final Lifecycle lifecycle = new Lifecycle("pull consumers");
    private volatile PullListener listener = PullListener.NONE;

    private final Object lock = new Object();
    /** Waiters by service key, in arrival order; guarded by {@code lock}. */
    private final Map<String, Deque<Waiter>> waiting = new HashMap<>();
    /** The wake planned per service key, the earliest only; guarded by {@code lock}. */
    private final Map<String, PlannedWake> plannedWakes = new HashMap<>();
    /** Per service key: a wake is running (its value: run again when it ends); guarded by {@code lock}. */
    private final Map<String, Boolean> waking = new HashMap<>();

    /**
     * Per service key, when a reserve or the watcher last found nothing ready: a consumer that comes
     * to wait within {@code watchIntervalMs} of it waits without a reserve of its own (the watcher
     * or a signal wakes it), so a crowd of consumers arriving at an empty service costs one read,
     * not one each. A job made due through this node clears it. Guarded by {@code lock}.
     */
    private final Map<String, Long> foundEmptyAt = new HashMap<>();
    /** Per service key, when this node last made one of its jobs due; guarded by {@code lock}. */
    private final Map<String, Long> signaledAt = new HashMap<>();

    /**
     * Per service key, the due times of the jobs this node made due that are still ahead, each a
     * wake in turn. Only the earliest is planned at a time; without the rest, a job due after
     * another one planned first waited for the watcher (up to its interval) or for a consumer's next
     * reserve — jobs submitted in due order, as a steady load is, mostly did. At most {@value
     * #MAX_KNOWN_DUE} per service (beyond it the watcher finds them). Guarded by {@code lock}.
     */
    private final Map<String, TreeSet<Long>> knownDue = new HashMap<>();

    static final int MAX_KNOWN_DUE = 100_000;

    /** Jobs one reserve ahead takes at most (what the waiters of a service ask for together, up to this). */
    static final int MAX_RESERVED_AHEAD = 1_000;

    /**
     * Per service key, the jobs reserved ahead for the waiters here, earliest due first: each is
     * handed out from memory at its due time, to a waiter that asked for the TTR it was reserved
     * with, or given back {@code holdMs} after it. Guarded by {@code lock}.
     */
    private final Map<String, TreeSet<Held>> held = new HashMap<>();

    /**
     * Per service key, how far this node's last reserve ahead reached while taking everything due
     * by then: a waiter finding nothing held does not reserve again while it reaches past now + the
     * lead. A job seen due before it (made due here, or by the watcher) takes it back. Guarded by
     * {@code lock}.
     */
    private final Map<String, Long> heldThrough = new HashMap<>();

    /**
     * Per service key, the reserves ahead under way, each with the earliest due time this node made
     * due since it began: such a job may have been committed after the reserve read, so what the
     * reserve tells of {@link #heldThrough} stops before it. (A job made due through another node
     * that a reserve did not read is the watcher's, at its next read, as before.) (Ignoring such a reserve's reach
     * altogether, as before, ignored nearly every reach under a steady load, where a submit comes
     * every few milliseconds: each consumer coming back then reserved again, on the service's row
     * lock, and held the due jobs up behind it. docs/performance.md, "Pull consumers".) Guarded by
     * {@code lock}.
     */
    private final Map<String, List<ReserveUnderWay>> reservesUnderWay = new HashMap<>();

    private static final java.util.Comparator<Held> HELD_ORDER = java.util.Comparator.comparingLong(Held::dueAt)
            .thenComparingLong(h -> h.reserved().job().id());

    private final AtomicInteger waiters = new AtomicInteger();
    /** Waiters a service's serving loop serves in one turn before the other services' turns. */
    static final int MAX_SERVED_PER_TURN = 8;

    private TaskScheduler.Scheduled watch; // guarded by lock

    public PullConsumers(
            ReservationStore store,
            JobReads jobs,
            ServiceLookup services,
            String nodeId,
            TaskScheduler timers,
            TaskScheduler reservers,
            Settings settings) {
        this.store = store;
        this.jobs = jobs;
        this.services = services;
        this.nodeId = nodeId;
        this.timers = timers;
        this.reservers = reservers;
        this.settings = settings;
    }

    public void start() {
        lifecycle.start();
    }

    /** Who hears of every answered reserve (metrics). */
    public void reportTo(PullListener listener) {
        this.listener = listener;
    }

    /**
     * Gives back what was reserved ahead and not handed out, answers every waiting consumer with
     * what it has (nothing), and takes no more waits.
     */
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        List<Waiter> all = new ArrayList<>();
        List<ReservationStore.HeldJob> unhanded = new ArrayList<>();
        synchronized (lock) {
            held.values().forEach(h -> h.forEach(j -> unhanded.add(j.reserved())));
            held.clear();
            heldThrough.clear();
            waiting.values().forEach(all::addAll);
            waiting.clear();
            plannedWakes.values().forEach(w -> w.task().cancel());
            plannedWakes.clear();
            knownDue.clear();
            if (watch != null) {
                watch.cancel();
                watch = null;
            }
        }
        giveBack(unhanded);
        all.forEach(w -> w.answer(List.of()));
    }

    /** Gives back jobs reserved ahead and never handed out; a failure leaves them to their deadline. */
    private void giveBack(List<ReservationStore.HeldJob> unhanded) {
        if (unhanded.isEmpty()) {
            return;
        }
        try {
            store.giveBack(unhanded, nodeId, timers.now());
        } catch (RuntimeException e) {
            LOG.warn(
                    "pull consumers: giving back {} jobs reserved ahead failed (they come back after their"
                            + " deadline): {}",
                    unhanded.size(),
                    e.toString());
        }
    }

    /** Consumers waiting on this node now. */
    public int waiting() {
        return waiters.get();
    }

    /**
     * Reserves for the app's consumer: at once what is ready, else — with {@code waitMs} — what
     * becomes ready within it. Bad input throws a typed error before anything is reserved.
     */
    public CompletableFuture<List<Job>> reserve(String app, ReserveRequest request) {
        Request r = validated(app, request);
        if (r.waitMs() == 0 || !lifecycle.isStarted()) {
            long at = timers.now();
            List<Held> fromMemory = new ArrayList<>(); // reserved ahead here and due
            List<ReservationStore.HeldJob> now = new ArrayList<>();
            reserveAtOnceInOrder(r, at, fromMemory, now);
            if (!fromMemory.isEmpty()) {
                // a held job whose hand-out time passed while the database answered would leave its
                // consumer less than its TTR: it goes back rather than out (as giveBackLapsed)
                long answeredAt = timers.now();
                List<ReservationStore.HeldJob> lapsed = fromMemory.stream()
                        .filter(h -> h.handOutBy() < answeredAt)
                        .map(Held::reserved)
                        .toList();
                if (!lapsed.isEmpty()) {
                    now.removeAll(lapsed);
                    giveBack(lapsed);
                    synchronized (lock) {
                        lapsed.forEach(h -> seenDue(h.job().serviceKey(), h.dueAt())); // due again
                    }
                }
            }
            return CompletableFuture.completedFuture(answeredAtOnce(now));
        }
        List<ReservationStore.HeldJob> heldDue = takeHeld(r, timers.now()); // reserved ahead here, due, not taken
        if (!heldDue.isEmpty()) {
            return CompletableFuture.completedFuture(answeredAtOnce(heldDue));
        }
        if (waiters.incrementAndGet() > settings.maxWaiting()) {
            waiters.decrementAndGet();
            throw new HourglassException(
                    ErrorCode.RATE_LIMITED,
                    "this node holds " + settings.maxWaiting()
                            + " waiting reserves already: wait less, or ask another node");
        }
        // It waits in line from the start; its first reserve runs on a reserving thread (below),
        // unless its services were all found empty a moment ago: then the watcher or a signal
        // wakes it, and consumers arriving together do not queue on the service's row lock.
        Waiter w = new Waiter(r, timers.now());
        boolean tryNow = false;
        boolean closed;
        synchronized (lock) {
            closed = !lifecycle.isStarted(); // close() answered every waiter it found: not this one
            if (!closed) {
                for (String key : r.keys()) {
                    waiting.computeIfAbsent(key, k -> new ArrayDeque<>()).add(w);
                    tryNow |= !recentlyFoundEmpty(key);
                    planNext(key);
                }
                if (watch == null) {
                    watch = timers.after(settings.watchIntervalMs(), this::watchOnReservingThread);
                }
            }
        }
        if (closed) {
            w.answer(List.of());
            return w.future;
        }
        w.timeout = timers.after(r.waitMs(), () -> w.answer(List.of()));
        if (tryNow) {
            // its own first reserve, on a reserving thread (two per node: consumers arriving
            // together reach the database two at a time, not all at once on the service's row)
            reservers.execute(() -> {
                try {
                    if (!allRecentlyFoundEmpty(w)) { // another's reserve may have found them empty since
                        serveWaiter(w);
                    }
                } catch (RuntimeException e) {
                    LOG.warn("pull consumers: a first reserve failed: {}", e.toString());
                }
            });
        }
        return w.future;
    }

    private List<Job> answeredAtOnce(List<ReservationStore.HeldJob> jobs) {
        heard(jobs, 0, timers.now());
        return jobs(jobs);
    }

    private static List<Job> jobs(List<ReservationStore.HeldJob> held) {
        return held.stream().map(ReservationStore.HeldJob::job).toList();
    }

    /** Tells the listener of an answer made now; a listener that fails costs a line in the log, not the answer. */
    private void heard(List<ReservationStore.HeldJob> jobs, long waitedMs, long at) {
        try {
            listener.answered(jobs, waitedMs, at);
        } catch (RuntimeException e) {
            LOG.warn("pull consumers: the metrics listener failed: {}", e.toString());
        }
    }

    private boolean allRecentlyFoundEmpty(Waiter w) {
        synchronized (lock) {
            return w.request.keys().stream().allMatch(this::recentlyFoundEmpty);
        }
    }

    /** Guarded by {@code lock}. */
    private boolean recentlyFoundEmpty(String key) {
        Long at = foundEmptyAt.get(key);
        return at != null && timers.now() - at < settings.watchIntervalMs();
    }

    private Request validated(String app, ReserveRequest request) {
        if (request == null) {
            throw HourglassException.invalid("services", "services is required");
        }
        List<String> names = request.getServices();
        if (names == null || names.isEmpty() || names.size() > PullLimits.MAX_SERVICES) {
            throw HourglassException.invalid(
                    "services", "services must name 1.." + PullLimits.MAX_SERVICES + " PULL services of the app");
        }
        LinkedHashSet<String> distinct = new LinkedHashSet<>();
        for (String name : names) {
            if (name == null) {
                throw HourglassException.invalid("services", "services must be names");
            }
            Optional<ServiceDefinition> service = services.find(app, name);
            if (service.isEmpty()) {
                throw HourglassException.invalid("services", "service " + name + " not found in app " + app);
            }
            if (service.get().protocol() != Protocol.PULL) {
                throw HourglassException.invalid(
                        "services",
                        "service " + name + " is " + service.get().protocol() + ", not PULL: it is not reserved");
            }
            distinct.add(name);
        }
        int max = request.getMax() == null ? 1 : request.getMax();
        if (max < 1 || max > PullLimits.MAX_RESERVE) {
            throw HourglassException.invalid("max", "max must be in 1.." + PullLimits.MAX_RESERVE);
        }
        Long ttrMs = request.getTtrMs();
        if (ttrMs != null && (ttrMs < PullLimits.MIN_TTR_MS || ttrMs > PullLimits.MAX_TTR_MS)) {
            throw HourglassException.invalid(
                    "ttrMs", "ttrMs must be in " + PullLimits.MIN_TTR_MS + ".." + PullLimits.MAX_TTR_MS);
        }
        long waitMs = request.getWaitMs() == null ? 0 : request.getWaitMs();
        if (waitMs < 0 || waitMs > PullLimits.MAX_WAIT_MS) {
            throw HourglassException.invalid("waitMs", "waitMs must be in 0.." + PullLimits.MAX_WAIT_MS);
        }
        return new Request(app, List.copyOf(distinct), max, ttrMs, waitMs);
    }

    /**
     * Moves a reservation's deadline to now + {@code ttrMs} (null: the job's timeout, within the
     * TTR's bounds), never past {@link PullLimits#MAX_LIFE_MS} from when it was made. NOT_FOUND
     * for a job outside {@code scope} (null: every app); CONFLICT when the attempt is not current.
     */
    public Job touch(String scope, long jobId, Integer attempt, Long ttrMs) {
        if (attempt == null || attempt < 1) { // over Dubbo a missing attempt arrives as 0
            throw HourglassException.invalid("attempt", "attempt is required: 1 or more");
        }
        if (ttrMs != null && (ttrMs < PullLimits.MIN_TTR_MS || ttrMs > PullLimits.MAX_TTR_MS)) {
            throw HourglassException.invalid(
                    "ttrMs", "ttrMs must be in " + PullLimits.MIN_TTR_MS + ".." + PullLimits.MAX_TTR_MS);
        }
        Job job = visible(scope, jobId);
        if (!services.isPulled(job.serviceKey())) {
            throw HourglassException.invalid(
                    "id",
                    "job " + jobId + " is of service " + job.service()
                            + ", which is not PULL: only reservations are touched");
        }
        long ttr = ttrMs != null ? ttrMs : PullLimits.defaultTtr(job.timeoutMs());
        if (store.touch(jobId, attempt, ttr, PullLimits.MAX_LIFE_MS, timers.now())
                .isEmpty()) {
            Job now = visible(scope, jobId);
            throw HourglassException.conflict(
                    "attempt",
                    "attempt " + attempt + " is not the current reservation of job " + jobId + " (" + now.state()
                            + ", attempt " + now.attempts() + ")");
        }
        return visible(scope, jobId);
    }

    /**
     * Ready jobs, open reservations and the oldest ready job of every PULL service known here, or of
     * {@code app}'s only (null: every app's); one read.
     */
    public Map<String, ReservationStore.Backlog> backlogs(String app) {
        List<String> keys = services.pulledServiceKeys().stream()
                .filter(k -> app == null || k.startsWith(app + "/"))
                .toList();
        Map<String, ReservationStore.Backlog> found = keys.isEmpty() ? Map.of() : store.backlogs(keys, timers.now());
        Map<String, ReservationStore.Backlog> all = new java.util.TreeMap<>();
        for (String key : keys) {
            all.put(key, found.getOrDefault(key, new ReservationStore.Backlog(0, 0, null)));
        }
        return all;
    }

    /** A PULL service's queue now, and its next {@code peek} ready jobs (lmstfy's size and peek). */
    public ReservationStore.QueueView queue(String app, String name, Integer peek) {
        int n = peek == null ? 0 : peek;
        if (n < 0 || n > PullLimits.MAX_PEEK) {
            throw HourglassException.invalid("peek", "peek must be in 0.." + PullLimits.MAX_PEEK);
        }
        ServiceDefinition service = services.find(app, name)
                .orElseThrow(() -> HourglassException.notFound("service " + name + " not found"));
        if (service.protocol() != Protocol.PULL) {
            throw HourglassException.invalid("name", "service " + name + " is " + service.protocol() + ", not PULL");
        }
        return store.queue(app, name, n, timers.now());
    }

    private Job visible(String scope, long jobId) {
        return jobs.find(jobId)
                .filter(j -> scope == null || j.app().equals(scope))
                .orElseThrow(() -> HourglassException.notFound("job " + jobId + " not found"));
    }

    /**
     * Whether the service is paused as this node knows it (memory): its consumers are served its
     * jobs no more, and the database refuses its reservations (the pause's row lock) should this
     * node not know yet. Unreadable: not paused here, and the database decides.
     */
    private boolean paused(String serviceKey) {
        try {
            return services.isPaused(serviceKey);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * How far ahead of a due time the service's jobs are reserved for the waiters here: none for a
     * rate-limited service. Its tokens are taken when a reservation is made, so jobs reserved ahead
     * of a due time they share would all start at it: up to the burst and a lead's worth of tokens
     * more at one instant than the rate allows. Its consumers are then served at the due time by a
     * reserve, a transaction later, which is within the rate's own spacing of its jobs.
     */
    private long leadOf(String serviceKey) {
        if (settings.reserveAheadMs() == 0) {
            return 0;
        }
        try {
            return services.isRateLimited(serviceKey) ? 0 : settings.reserveAheadMs();
        } catch (RuntimeException e) {
            return 0; // unreadable: reserving at the due time is right for any service
        }
    }

    /**
     * Services resumed (through any node): their waiters are served now, not only when the watcher
     * next looks.
     */
    public void resumed(java.util.Collection<String> serviceKeys) {
        long now = timers.now();
        serviceKeys.forEach(key -> due(key, now));
    }

    /**
     * A PULL job this node made due: its service's waiters are woken at its due time, also if they
     * come to wait only after this.
     */
    @Override
    public void due(String serviceKey, long dueAt) {
        synchronized (lock) {
            long now = timers.now();
            foundEmptyAt.remove(serviceKey);
            signaledAt.put(serviceKey, now);
            if (dueAt > now) {
                TreeSet<Long> ahead = knownDue.computeIfAbsent(serviceKey, k -> new TreeSet<>());
                ahead.headSet(now, true).clear();
                if (ahead.size() < MAX_KNOWN_DUE) {
                    ahead.add(dueAt);
                }
            }
            seenDue(serviceKey, dueAt);
            reservesUnderWay.getOrDefault(serviceKey, List.of()).forEach(r -> r.madeDue(dueAt));
            if (waiting.containsKey(serviceKey)) {
                planWake(serviceKey, dueAt - leadOf(serviceKey));
            }
        }
    }

    /**
     * Guarded by {@code lock}. A job of the service is DELAYED and due then: if the last reserve
     * ahead reached past it, it did not take this one, so it no longer counts as having taken all.
     */
    private void seenDue(String key, long dueAt) {
        Long through = heldThrough.get(key);
        if (through != null && through >= dueAt) {
            heldThrough.put(key, dueAt - 1);
        }
    }

    /**
     * Guarded by {@code lock}. Plans the service's next wake, the earliest of: the hand-out of the
     * next job held for it that is not due yet (while it has waiters), the give-back of the first
     * held one, and the reserve ahead of the next due time this node knows of past what is held.
     */
    private void planNext(String key) {
        planNextAfter(key, Long.MIN_VALUE);
    }

    /**
     * Guarded by {@code lock}. {@link #planNext}, of the wakes after {@code after} only: the timer
     * plans the next hand-out itself, but leaves what is due now (a give-back, a reserve ahead) to
     * the serve its wake started, rather than wake again at once while that serve waits.
     */
    private void planNextAfter(String key, long after) {
        long now = timers.now();
        long next = Long.MAX_VALUE;
        boolean hasWaiters = waiting.containsKey(key);
        TreeSet<Held> jobs = held.get(key);
        if (jobs != null && !jobs.isEmpty()) {
            for (Held h : jobs) {
                if (h.handOutBy() > after) {
                    next = Math.min(next, h.handOutBy());
                }
            }
            // one due already and still here is for nobody waiting now (another TTR): not a wake
            if (hasWaiters) {
                for (Held h : jobs) {
                    if (h.dueAt() > Math.max(now, after)) {
                        next = Math.min(next, h.dueAt());
                        break;
                    }
                }
            }
        }
        TreeSet<Long> ahead = knownDue.get(key);
        if (ahead != null) {
            // a due time whose reserve ahead has come was served (by the serve that plans this, or
            // by the first reserve of a waiter that came after it); one within what the last
            // reserve ahead took all of needs none
            long lead = leadOf(key);
            long served = Math.max(now + lead, heldThrough.getOrDefault(key, Long.MIN_VALUE));
            ahead.headSet(served, true).clear();
            if (ahead.isEmpty()) {
                knownDue.remove(key);
            } else if (hasWaiters && ahead.first() - lead > after) {
                next = Math.min(next, ahead.first() - lead);
            }
        }
        if (next != Long.MAX_VALUE) {
            planWake(key, next);
        }
    }

    /** Guarded by {@code lock}. Keeps the earliest wake of the service only. */
    private void planWake(String key, long at) {
        PlannedWake planned = plannedWakes.get(key);
        if (planned != null && planned.at() <= at) {
            return;
        }
        if (planned != null) {
            planned.task().cancel();
        }
        long when = Math.max(at, timers.now());
        TaskScheduler.Scheduled task = timers.at(when, () -> {
            synchronized (lock) {
                if (plannedWakes.get(key) == null || plannedWakes.get(key).at() != when) {
                    return; // replaced by an earlier one, which ran
                }
                plannedWakes.remove(key);
            }
            try {
                handOut(key);
            } finally {
                wake(key); // the serve that gives back and reserves ahead, whatever the hand-out did
            }
        });
        plannedWakes.put(key, new PlannedWake(when, task));
    }

    /**
     * On the timer's thread, from memory: hands the service's held jobs that are due to its waiters
     * in arrival order. Not behind a reserve under way on the reserving threads: a database
     * transaction must not hold up a job that is due and already reserved. For the same reason it
     * plans the next hand-out itself: planned only by the serve its wake starts on the reserving
     * threads, the next held job waited behind their transactions (docs/performance.md, "Pull
     * consumers").
     */
    private void handOut(String key) {
        try {
            handOutDue(key);
        } finally {
            synchronized (lock) {
                planNextAfter(key, timers.now());
            }
        }
    }

    private void handOutDue(String key) {
        long now = timers.now();
        List<Waiter> line;
        synchronized (lock) {
            TreeSet<Held> jobs = held.get(key);
            if (jobs == null || jobs.isEmpty() || jobs.first().dueAt() > now || !waiting.containsKey(key)) {
                return;
            }
            line = new ArrayList<>(waiting.get(key));
        }
        for (Waiter w : line) {
            if (!w.startServing()) {
                continue; // being served, or answered
            }
            List<ReservationStore.HeldJob> got = takeHeld(w.request, now);
            if (got.isEmpty()) {
                w.stopServing(); // held for another TTR, or none due is left
                synchronized (lock) {
                    TreeSet<Held> jobs = held.get(key);
                    if (jobs == null || jobs.first().dueAt() > now) {
                        return;
                    }
                }
                continue;
            }
            w.answerServed(got);
        }
    }

    /**
     * The watcher's read runs on a reserving thread: on the timer's, a database that hangs would
     * hold up every waiter's timeout and wake behind it.
     */
    private void watchOnReservingThread() {
        reservers.execute(this::watchTick);
    }

    /** Reads the next due time of every service with waiters; plans their wakes; again later while any wait. */
    private void watchTick() {
        List<String> keys;
        synchronized (lock) {
            keys = new ArrayList<>(waiting.keySet());
            if (keys.isEmpty() || !lifecycle.isStarted()) {
                watch = null;
                return;
            }
        }
        try {
            long readAt = timers.now();
            Map<String, Long> next = store.nextDue(keys);
            synchronized (lock) {
                for (String key : keys) {
                    Long dueAt = next.get(key);
                    if ((dueAt == null || dueAt > readAt) && signaledAt.getOrDefault(key, Long.MIN_VALUE) < readAt) {
                        foundEmptyAt.merge(key, readAt, Math::max); // nothing ready when read
                    }
                    if (dueAt != null) {
                        seenDue(key, dueAt);
                        if (waiting.containsKey(key)) {
                            planWake(key, dueAt - leadOf(key));
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("pull consumers: reading the next due time of {} services failed: {}", keys.size(), e.toString());
        } finally {
            synchronized (lock) {
                watch = waiting.isEmpty() || !lifecycle.isStarted()
                        ? null
                        : timers.after(settings.watchIntervalMs(), this::watchOnReservingThread);
            }
        }
    }

    /** Serves the service's waiters on a reserving thread; one run per service at a time. */
    private void wake(String key) {
        synchronized (lock) {
            if (waking.containsKey(key)) {
                waking.put(key, Boolean.TRUE); // the running one goes round once more
                return;
            }
            waking.put(key, Boolean.FALSE);
        }
        reservers.execute(() -> serve(key));
    }

    private void serve(String key) {
        boolean more = false;
        try {
            giveBackLapsed(key);
            // a turn of at most MAX_SERVED_PER_TURN waiters, then the service goes to the back of
            // the reserving threads' queue: a busy service must not hold a thread (there are two)
            // while other services' wakes and the watcher wait behind it
            for (int served = 0; served < MAX_SERVED_PER_TURN && (more = serveOnce(key)); served++) {
                // until a waiter gets fewer than it asked for, or none is left
            }
        } catch (RuntimeException e) {
            LOG.warn("pull consumers: a reserve for waiting consumers of {} failed: {}", key, e.toString());
        } finally {
            boolean again;
            synchronized (lock) {
                again = Boolean.TRUE.equals(waking.remove(key)) || more;
                if (!again) {
                    planNext(key);
                }
            }
            if (again) {
                wake(key);
            }
        }
    }

    /** Serves the first waiter of the service; whether to go on with the next. */
    private boolean serveOnce(String key) {
        Waiter w = null;
        synchronized (lock) {
            Deque<Waiter> line = waiting.get(key);
            if (line != null) {
                for (Waiter candidate : line) {
                    // one being served for another of its services, or answered and leaving, is skipped
                    if (candidate.state.get() == Waiter.WAITING) {
                        w = candidate;
                        break;
                    }
                }
            }
        }
        return w != null && serveWaiter(w);
    }

    /**
     * Serves this waiter, if it is still waiting and nobody else serves it: with jobs held for it
     * that are due (from memory), else with a reserve (ahead, when enabled: what is due now is its
     * answer, what is due within the reach is held for the waiters here), unless the last reserve
     * ahead took everything due until past the lead. Answered with what it got, or back to waiting
     * (the services it asked for are then known empty, unless a job was made due through this node
     * since the reserve began). Whether it got all it asked for.
     */
    private boolean serveWaiter(Waiter w) {
        if (!w.startServing()) {
            return false;
        }
        Request r = w.request;
        long at = timers.now();
        List<ReservationStore.HeldJob> got = takeHeld(r, at);
        boolean reserved = false;
        if (got.isEmpty() && !coveredAhead(r, at)) {
            reserved = true;
            try {
                got = reserveFor(r, at);
            } catch (RuntimeException e) {
                w.failServed(e); // its consumer hears of it (UNAVAILABLE), as from a reserve at once
                throw e;
            }
            if (got.isEmpty()) {
                // held jobs that came due while the reserve ran (taken ahead by another): the
                // timer's hand-out skipped this waiter as being served, and no other may wait
                got = takeHeld(r, timers.now());
            }
        }
        if (got.isEmpty()) {
            synchronized (lock) {
                for (String k : r.keys()) {
                    if (reserved && signaledAt.getOrDefault(k, Long.MIN_VALUE) < at) {
                        foundEmptyAt.merge(k, at, Math::max);
                    }
                }
            }
            w.stopServing();
            return false;
        }
        w.answerServed(got);
        // fewer than it asked for: what was ready (or what maxInFlight allows) is taken, and the
        // next waiter's reserve would be a transaction for nothing
        return got.size() >= r.max();
    }

    /**
     * A reserve at once, in the order of the request's services: each service's jobs held here and
     * due, then its ready jobs in the database — one transaction for the run of services up to the
     * next one with held jobs, so a later service's held job never goes before an earlier one's
     * ready job, and a request without held jobs costs one transaction, as before. A failure of the
     * database after something was taken answers with what was taken.
     */
    private void reserveAtOnceInOrder(
            Request r, long at, List<Held> fromMemory, List<ReservationStore.HeldJob> answer) {
        List<String> names = r.services();
        int i = 0;
        while (i < names.size() && answer.size() < r.max()) {
            List<Held> taken = takeHeldEntries(r, List.of(r.keys().get(i)), r.max() - answer.size(), at);
            fromMemory.addAll(taken);
            answer.addAll(reservations(taken));
            if (answer.size() >= r.max()) {
                return;
            }
            int next = i + 1;
            while (next < names.size() && !hasHeldDue(r, r.keys().get(next), at)) {
                next++;
            }
            List<String> open = names.subList(i, next).stream()
                    .filter(name -> !paused(Job.serviceKey(r.app(), name)))
                    .toList();
            if (!open.isEmpty()) {
                try {
                    answer.addAll(store.reserve(r.app(), open, r.max() - answer.size(), r.ttrMs(), nodeId, at));
                } catch (RuntimeException e) {
                    if (answer.isEmpty()) {
                        throw e;
                    }
                    // what was taken is this consumer's: answered, not left to its deadline
                    LOG.warn(
                            "pull consumers: a reserve failed; answering with the {} jobs taken: {}",
                            answer.size(),
                            e.toString());
                    return;
                }
            }
            i = next;
        }
    }

    /** Whether a job held here for {@code key} and the request's TTR is due and may be handed out. */
    private boolean hasHeldDue(Request r, String key, long now) {
        synchronized (lock) {
            TreeSet<Held> jobs = held.get(key);
            if (jobs == null || paused(key)) {
                return false;
            }
            for (Held h : jobs) {
                if (h.dueAt() > now) {
                    return false;
                }
                if (h.handOutBy() >= now && java.util.Objects.equals(h.ttrMs(), r.ttrMs())) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Jobs held here for the request's services and TTR that are due at {@code now}, in its order. */
    private List<ReservationStore.HeldJob> takeHeld(Request r, long now) {
        return reservations(takeHeldEntries(r, now));
    }

    private static List<ReservationStore.HeldJob> reservations(List<Held> held) {
        return held.stream().map(Held::reserved).toList();
    }

    /** {@link #takeHeld}, with each job's hand-out time. */
    private List<Held> takeHeldEntries(Request r, long now) {
        return takeHeldEntries(r, r.keys(), r.max(), now);
    }

    /** {@link #takeHeldEntries(Request, long)} of the given services, up to {@code max}. */
    private List<Held> takeHeldEntries(Request r, List<String> keys, int max, long now) {
        List<Held> got = new ArrayList<>();
        synchronized (lock) {
            for (String key : keys) {
                TreeSet<Held> jobs = held.get(key);
                if (jobs == null || paused(key)) {
                    continue; // a paused service's held jobs go back unhanded (giveBackLapsed)
                }
                for (java.util.Iterator<Held> it = jobs.iterator(); it.hasNext() && got.size() < max; ) {
                    Held h = it.next();
                    if (h.dueAt() > now) {
                        break; // never before its due time
                    }
                    if (h.handOutBy() < now) {
                        // past its hand-out time the consumer would get less than its TTR before
                        // the deadline in the database: it is the give-back's (giveBackLapsed),
                        // even while the reserving threads that run it are busy
                        continue;
                    }
                    if (java.util.Objects.equals(h.ttrMs(), r.ttrMs())) {
                        got.add(h);
                        it.remove();
                    }
                }
                if (jobs.isEmpty()) {
                    held.remove(key);
                }
            }
        }
        return got;
    }

    /** Whether the last reserve ahead of each of the request's services took all due until past now + the lead. */
    private boolean coveredAhead(Request r, long now) {
        if (settings.reserveAheadMs() == 0) {
            return false;
        }
        synchronized (lock) {
            return r.keys().stream().allMatch(k -> {
                long lead = leadOf(k);
                return lead > 0 && heldThrough.getOrDefault(k, Long.MIN_VALUE) >= now + lead;
            });
        }
    }

    /**
     * Reserves for the request, service by service in its order: what is due now is the answer, up
     * to its max; with reserving ahead, the jobs due within twice the lead are taken too, for as
     * many as the waiters here with the same TTR ask, and held for them.
     */
    private List<ReservationStore.HeldJob> reserveFor(Request r, long at) {
        List<ReservationStore.HeldJob> dueNow = new ArrayList<>();
        for (String service : r.services()) {
            if (dueNow.size() >= r.max()) {
                break;
            }
            String key = Job.serviceKey(r.app(), service);
            if (paused(key)) {
                continue; // starts nothing: the database would refuse it too, under the row's lock
            }
            long lead = leadOf(key);
            long horizon = at + 2 * lead;
            int wanted = lead > 0 ? demand(key, r) : r.max() - dueNow.size();
            ReserveUnderWay underWay = new ReserveUnderWay();
            synchronized (lock) {
                reservesUnderWay.computeIfAbsent(key, k -> new ArrayList<>()).add(underWay);
            }
            ReservationStore.Ahead ahead;
            try {
                ahead = store.reserveAhead(r.app(), service, wanted, r.ttrMs(), nodeId, at, horizon, settings.holdMs());
            } catch (RuntimeException e) {
                if (dueNow.isEmpty()) {
                    throw e;
                }
                // the earlier services' jobs are reserved (committed): hand them out rather than
                // leave them to their TTR behind an error
                LOG.warn(
                        "pull consumers: reserving from {} failed; answering with what was reserved: {}",
                        key,
                        e.toString());
                break;
            } finally {
                synchronized (lock) {
                    List<ReserveUnderWay> under = reservesUnderWay.get(key);
                    under.remove(underWay);
                    if (under.isEmpty()) {
                        reservesUnderWay.remove(key);
                    }
                }
            }
            List<ReservationStore.HeldJob> taken = ahead.jobs();
            // what came due while the transaction ran is this waiter's answer too: held, it would
            // wait for the timer's hand-out, which skips this waiter while it is being served
            long tookAt = timers.now();
            synchronized (lock) {
                if (lead > 0 && (ahead.tookAllDue() || !taken.isEmpty())) {
                    // taken in due order: all due by the horizon (none, when nothing was), or all
                    // due before the last (the count asked, maxInFlight or the rate left the rest);
                    // and not a job made due here since the reserve began, which it may not have read
                    long through = ahead.tookAllDue()
                            ? horizon
                            : taken.get(taken.size() - 1).dueAt() - 1;
                    through = Math.min(through, underWay.earliestMadeDue - 1);
                    heldThrough.merge(key, through, Math::max);
                }
                boolean holds = false;
                for (ReservationStore.HeldJob h : taken) {
                    // its deadline in the database counts from here: handed out later than this,
                    // its consumer would get less than its TTR (a transaction slower than the hold)
                    long handOutBy = Math.max(h.dueAt(), at) + settings.holdMs();
                    if (h.dueAt() <= tookAt && tookAt <= handOutBy && dueNow.size() < r.max()) {
                        dueNow.add(h);
                    } else { // held for its due time, or for its give-back (giveBackLapsed)
                        held.computeIfAbsent(key, k -> new TreeSet<>(HELD_ORDER))
                                .add(new Held(h, r.ttrMs(), handOutBy));
                        holds = true;
                    }
                }
                if (holds) {
                    // their hand-out and give-back: a waiter's first reserve is not a serve, which
                    // plans them when it ends, and no other wake may be coming (a job made due
                    // through another node is DELAYED no more, so the watcher cannot see it)
                    planNext(key);
                }
            }
        }
        return dueNow;
    }

    /**
     * How many to reserve ahead of a service for a waiter: what the waiters of it here that ask
     * for the same TTR ask for together, at least the waiter's own, at most {@value
     * #MAX_RESERVED_AHEAD}.
     */
    private int demand(String key, Request r) {
        int sum = 0;
        synchronized (lock) {
            Deque<Waiter> line = waiting.get(key);
            if (line != null) {
                for (Waiter w : line) {
                    if (java.util.Objects.equals(w.request.ttrMs(), r.ttrMs())) {
                        sum += w.request.max();
                    }
                }
            }
        }
        return Math.max(r.max(), Math.min(MAX_RESERVED_AHEAD, sum));
    }

    /** Gives back the service's held jobs nobody took by their hand-out time ({@link Held#handOutBy}). */
    private void giveBackLapsed(String key) {
        long now = timers.now();
        List<ReservationStore.HeldJob> lapsed = new ArrayList<>();
        synchronized (lock) {
            TreeSet<Held> jobs = held.get(key);
            for (Iterator<Held> it = jobs == null ? Collections.emptyIterator() : jobs.iterator(); it.hasNext(); ) {
                Held h = it.next();
                if (h.handOutBy() <= now) {
                    it.remove();
                    lapsed.add(h.reserved());
                    seenDue(key, h.dueAt()); // due again, in the database
                }
            }
            if (jobs != null && jobs.isEmpty()) {
                held.remove(key);
            }
        }
        giveBack(lapsed);
    }

    /** Takes an answered waiter out of every line it stands in. */
    private void leave(Waiter w) {
        waiters.decrementAndGet();
        synchronized (lock) {
            for (String key : w.request.keys()) {
                Deque<Waiter> line = waiting.get(key);
                if (line != null) {
                    line.remove(w);
                    if (line.isEmpty()) {
                        waiting.remove(key);
                        PlannedWake planned = plannedWakes.remove(key);
                        if (planned != null) {
                            planned.task().cancel();
                        }
                        planNext(key); // what is held for it still has its give-back
                    }
                }
            }
        }
    }

    record Request(String app, List<String> services, int max, Long ttrMs, long waitMs) {
        List<String> keys() {
            return services.stream().map(s -> Job.serviceKey(app, s)).toList();
        }
    }

    private record PlannedWake(long at, TaskScheduler.Scheduled task) {}

    /** A reserve ahead under way: the earliest due time made due here since it began. Guarded by {@code lock}. */
    private static final class ReserveUnderWay {
        long earliestMadeDue = Long.MAX_VALUE;

        void madeDue(long dueAt) {
            earliestMadeDue = Math.min(earliestMadeDue, dueAt);
        }
    }

    /**
     * A job reserved ahead and held here, with the TTR it was reserved with (null: the default),
     * handed out or given back by {@code handOutBy}: {@code holdMs} past its due time, or past when
     * it was reserved if it was due already then, as its deadline in the database counts
     * (ReservationMapper.reserve). Counted from the due time only, the jobs a reserve took for the
     * other waiters of a service behind in its work were given back unhanded at once: 2,600 of
     * 20,000 in a drain of 8 consumers, each a reservation and a give-back for nothing.
     */
    private record Held(ReservationStore.HeldJob reserved, Long ttrMs, long handOutBy) {
        long dueAt() {
            return reserved.dueAt();
        }
    }

    /**
     * One waiting reserve. States: WAITING → SERVING (a reserve is under way for it) → back to
     * WAITING (nothing came) or ANSWERED; or WAITING → ANSWERED (its wait ran out, or the node
     * stops). A wait that runs out while SERVING leaves the answer to the serving reserve.
     */
    private final class Waiter {
        private static final int WAITING = 0;
        private static final int SERVING = 1;
        private static final int ANSWERED = 2;

        final Request request;
        final long since;
        final CompletableFuture<List<Job>> future = new CompletableFuture<>();
        volatile TaskScheduler.Scheduled timeout;
        final AtomicInteger state = new AtomicInteger(WAITING);
        private volatile boolean waitRanOut;

        Waiter(Request request, long since) {
            this.request = request;
            this.since = since;
        }

        boolean startServing() {
            return state.compareAndSet(WAITING, SERVING);
        }

        void stopServing() {
            state.set(WAITING);
            if (waitRanOut) {
                answer(List.of());
            }
        }

        void answerServed(List<ReservationStore.HeldJob> jobs) {
            state.set(ANSWERED);
            finish(jobs);
        }

        void failServed(RuntimeException failure) {
            state.set(ANSWERED);
            TaskScheduler.Scheduled t = timeout;
            if (t != null) {
                t.cancel();
            }
            leave(this);
            future.completeExceptionally(failure);
        }

        /** An answer from outside a serve: its wait ran out, or the node stops. */
        void answer(List<ReservationStore.HeldJob> jobs) {
            waitRanOut = true;
            if (state.compareAndSet(WAITING, ANSWERED)) {
                finish(jobs);
            }
        }

        private void finish(List<ReservationStore.HeldJob> jobs) {
            TaskScheduler.Scheduled t = timeout;
            if (t != null) {
                t.cancel();
            }
            leave(this);
            long at = timers.now(); // the answer's time, before its JSON is written on this thread
            future.complete(jobs(jobs));
            heard(jobs, Math.max(0, at - since), at);
        }
    }
}
