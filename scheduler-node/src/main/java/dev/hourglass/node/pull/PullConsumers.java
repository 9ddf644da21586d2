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
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 *       reservation of one of its shards): {@link #due} plans a wake at the job's due time, from
 *       memory — the path of a job submitted through the node its consumer waits on;
 *   <li>the watcher: while a service has waiters, every {@code watchIntervalMs} one read of the
 *       next due time of every watched service (one statement, whatever the number of waiters and
 *       services) plans a wake at each — the path of a job made due through another node.
 * </ul>
 *
 * A wake serves the service's waiters in arrival order, each with a reserve of its own services in
 * its order, until one gets nothing (what is ready is then taken), {@value #MAX_SERVED_PER_TURN}
 * per turn. One wake per service runs at a time, on the reserving threads; a waiter whose wait ran out while it was being served gets what
 * was reserved for it rather than an empty answer, so no reservation is made for nobody.
 */
public final class PullConsumers implements PulledJobSignals {
    private static final Logger LOG = LoggerFactory.getLogger(PullConsumers.class);

    /**
     * @param watchIntervalMs how often the next due time of the services with waiters is read: the
     *     bound on how late a job made due through another node reaches a waiter here
     * @param maxWaiting waiting reserves this node holds at most; one more is RATE_LIMITED
     */
    public record Settings(long watchIntervalMs, int maxWaiting) {
        public static final Settings DEFAULTS = new Settings(100, 10_000);
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

    /** Answers every waiting consumer with what it has (nothing), and takes no more waits. */
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        List<Waiter> all = new ArrayList<>();
        synchronized (lock) {
            waiting.values().forEach(all::addAll);
            waiting.clear();
            plannedWakes.values().forEach(w -> w.task().cancel());
            plannedWakes.clear();
            if (watch != null) {
                watch.cancel();
                watch = null;
            }
        }
        all.forEach(w -> w.answer(List.of()));
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
            List<Job> now = store.reserve(app, r.services(), r.max(), r.ttrMs(), nodeId, timers.now());
            listener.answered(now.size(), 0);
            return CompletableFuture.completedFuture(now);
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
        if (attempt == null) {
            throw HourglassException.invalid("attempt", "attempt is required");
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
            throw HourglassException.conflict("attempt " + attempt + " is not the current reservation of job " + jobId
                    + " (" + now.state() + ", attempt " + now.attempts() + ")");
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

    /** A PULL job this node made due: its service's waiters are woken at its due time. */
    @Override
    public void due(String serviceKey, long dueAt) {
        synchronized (lock) {
            foundEmptyAt.remove(serviceKey);
            signaledAt.put(serviceKey, timers.now());
            if (waiting.containsKey(serviceKey)) {
                planWake(serviceKey, dueAt);
            }
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
            wake(key);
        });
        plannedWakes.put(key, new PlannedWake(when, task));
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
                    if (dueAt != null && waiting.containsKey(key)) {
                        planWake(key, dueAt);
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
            // a turn of at most MAX_SERVED_PER_TURN waiters, then the service goes to the back of
            // the reserving threads' queue: a busy service must not hold a thread (there are two)
            // while other services' wakes and the watcher wait behind it
            for (int served = 0; served < MAX_SERVED_PER_TURN && (more = serveOnce(key)); served++) {
                // until a waiter gets nothing, or none is left
            }
        } catch (RuntimeException e) {
            LOG.warn("pull consumers: a reserve for waiting consumers of {} failed: {}", key, e.toString());
        } finally {
            boolean again;
            synchronized (lock) {
                again = Boolean.TRUE.equals(waking.remove(key)) || more;
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
     * One reserve for this waiter, if it is still waiting and nobody else serves it: answered with
     * what it got, or back to waiting (the services it asked for are then known empty, unless a job
     * was made due through this node since the reserve began). Whether it got something.
     */
    private boolean serveWaiter(Waiter w) {
        if (!w.startServing()) {
            return false;
        }
        Request r = w.request;
        long at = timers.now();
        List<Job> got;
        try {
            got = store.reserve(r.app(), r.services(), r.max(), r.ttrMs(), nodeId, at);
        } catch (RuntimeException e) {
            w.failServed(e); // its consumer hears of it (UNAVAILABLE), as from a reserve at once
            throw e;
        }
        if (got.isEmpty()) {
            synchronized (lock) {
                for (String k : r.keys()) {
                    if (signaledAt.getOrDefault(k, Long.MIN_VALUE) < at) {
                        foundEmptyAt.merge(k, at, Math::max);
                    }
                }
            }
            w.stopServing();
            return false;
        }
        w.answerServed(got);
        return true;
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

        void answerServed(List<Job> jobs) {
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
        void answer(List<Job> jobs) {
            waitRanOut = true;
            if (state.compareAndSet(WAITING, ANSWERED)) {
                finish(jobs);
            }
        }

        private void finish(List<Job> jobs) {
            TaskScheduler.Scheduled t = timeout;
            if (t != null) {
                t.cancel();
            }
            leave(this);
            future.complete(jobs);
            try {
                listener.answered(jobs.size(), Math.max(0, timers.now() - since));
            } catch (RuntimeException e) {
                LOG.warn("pull consumers: the metrics listener failed: {}", e.toString());
            }
        }
    }
}
