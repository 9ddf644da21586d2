package dev.hourglass.node.manage;

import dev.hourglass.node.background.DaemonThreads;
import dev.hourglass.node.background.Lifecycle;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.JobWrites.Inserted;
import dev.hourglass.node.core.port.PoisonResultException;
import dev.hourglass.node.core.port.StoreContendedException;
import dev.hourglass.node.core.port.StoreOutcomeUnknownException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: concurrent callers' writes share one transaction. Used for single submits ({@link
 * #ofSubmits}: each used to be its own transaction, and its commit, a log flush, was most of its
 * cost) and for consumers' results ({@link #ofResults}: a pull consumer acknowledging job by job,
 * as lmstfy's and beanstalkd's clients do). Concurrent callers queue their item, and a writer
 * thread takes everything queued (up to {@code maxGroup} of weight: jobs, or results) and writes it
 * in one transaction, then answers each caller with its own answer. A group forms while a commit is
 * under way, and, when items come close together, during a short linger: a writer that takes an
 * item which came less than {@code lingerMs} after the one before it waits up to {@code lingerMs}
 * for more before it writes. An item that comes alone (a quiet node) is written at once.
 *
 * <p>Why the linger: at a steady few hundred submits or results a second, each one came to an idle
 * writer and was its own transaction, and MariaDB's CPU went on the statements every transaction
 * has (its own, the autocommit switches, the commit), not on the rows; a node and its database
 * sharing the machine's cores then made everything later. Measured in docs/performance.md ("A
 * linger in the group commits").
 *
 * <p>Two items whose {@link Grouping#exclusiveKeys} meet are never in one group: the later one
 * waits for the next (two results for one job in one transaction would both be answered as the
 * one that was written).
 *
 * <ul>
 *   <li>A caller is answered only after the commit that wrote its item (a submit: or after the
 *       commit that found its bizKey taken: it gets that job, {@code created == false}; two callers
 *       with one bizKey in one group are answered as if they came one after the other).
 *   <li>A group whose transaction fails before its commit wrote nothing (it is rolled back as a
 *       whole). When the database is unavailable, every caller of the group gets that error; a failure that may be
 *       one item's fault ({@link Grouping#itemAtFault}: a submit's row refused, a result batch the
 *       database refuses) is retried item by item, so that only the callers whose own item fails
 *       get an error; any other failure reaches every caller of the group.
 *   <li>A group that timed out on a lock or lost a deadlock ({@link StoreContendedException}) is
 *       written again in two parts: the items no other transaction can hold a lock for ({@link
 *       Grouping#mayContend} false: submits without a bizKey) together, so that if they time out
 *       too the server itself is stalled and the whole group fails; then each other item alone (a
 *       submit with a bizKey for at most {@link #CONTENDED_BUDGET_MS}, so a stalled server cannot
 *       hold a writer for a statement timeout per job; result batches until a second one times out,
 *       as one held row accounts for one, then the rest fail at once).
 *   <li>Retrying item by item stops at a database that turns out unreachable: the rest of the group
 *       gets that error at once.
 *   <li>A group of submits whose commit lost its connection was read back by the store: stored, every caller
 *       gets its job; not stored, every caller gets UNAVAILABLE; not known (the database stayed
 *       away), every caller gets {@link StoreOutcomeUnknownException}, and the group is not
 *       written again: it may be stored.
 * </ul>
 *
 * Thread-safe. {@link #close()} writes what is queued, then stops; an item after that is written
 * on the caller's thread.
 *
 * <p>Why not the engine's {@link dev.hourglass.node.background.BatchLoop}: that runs one batch at a
 * time and never makes its callers wait, while here {@code writers} threads write groups
 * side by side (one builds its group while another's commit is under way) and a bounded queue
 * holds callers back when every writer is behind — back-pressure the API needs and the engine
 * must not have.
 */
public final class GroupCommit<T, R> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);
    /** How long the single writes after a contended group may take before the rest fail. */
    static final long CONTENDED_BUDGET_MS = 30_000;

    private static final long LINGER_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final long contendedBudgetMs;
    /** Single writes after a contended group that may time out before the rest fail at once. */
    private final int contendedSinglesAllowed;

    /**
     * @param writers threads writing groups; more than one lets a group be built and sent while
     *     another one's commit waits for its log flush
     * @param maxGroup most jobs in one transaction
     * @param lingerMs how long a writer waits for more items after the first of a group, when that
     *     one came less than this after the item before it; 0: never
     */
    public record Settings(int writers, int maxGroup, long lingerMs) {
        public Settings {
            if (writers < 1 || maxGroup < 1) {
                throw new IllegalArgumentException("writers and maxGroup must be at least 1");
            }
            if (lingerMs < 0) {
                throw new IllegalArgumentException("lingerMs must not be negative");
            }
        }

        public Settings(int writers, int maxGroup) {
            this(writers, maxGroup, 0);
        }
    }

    /**
     * What the group commit needs to know of an item.
     *
     * @param weight its share of {@code maxGroup} (a submit 1, a batch of results its size)
     * @param exclusiveKeys keys no two items of one group may share (none for submits: the store
     *     answers two bizKeys alike in one group in order; job ids for results)
     * @param mayContend whether another transaction may hold a lock the item's write waits for
     * @param itemAtFault whether a group's failure may be one item's fault (then each is written
     *     alone); any other failure is every caller's
     */
    public record Grouping<T>(
            ToIntFunction<T> weight,
            Function<T, Collection<?>> exclusiveKeys,
            Predicate<T> mayContend,
            Predicate<RuntimeException> itemAtFault) {}

    /** @param closeBehind whether it came less than the linger after the item before it */
    private record Pending<T, R>(T item, CompletableFuture<R> answer, boolean closeBehind) {}

    private final String what;
    private final Function<List<T>, List<R>> store;
    private final Grouping<T> grouping;
    private final int maxGroup;
    private final long lingerNanos;
    /** When the latest item came ({@link System#nanoTime()}). */
    private final AtomicLong lastArrival = new AtomicLong(System.nanoTime() - TimeUnit.DAYS.toNanos(1));
    /** Held by the one writer gathering a group, so that two idle writers do not split one between them. */
    private final ReentrantLock gathering = new ReentrantLock();

    private final BlockingQueue<Pending<T, R>> queue;
    private final int writerCount;
    private final List<Thread> writers = new ArrayList<>();
    private final Lifecycle lifecycle;
    /** Started and not closed: items go through the writers (else each is written alone). */
    private volatile boolean open;

    /**
     * Single submits.
     *
     * @param store stores a list of jobs in one transaction, all or nothing, one answer per job in
     *     order ({@code JobWrites.insertAll})
     */
    public static GroupCommit<Job, Inserted> ofSubmits(Function<List<Job>, List<Inserted>> store, Settings settings) {
        return ofSubmits(store, settings, CONTENDED_BUDGET_MS);
    }

    /** @param contendedBudgetMs see {@link #CONTENDED_BUDGET_MS} (tests shorten it) */
    static GroupCommit<Job, Inserted> ofSubmits(
            Function<List<Job>, List<Inserted>> store, Settings settings, long contendedBudgetMs) {
        return new GroupCommit<>(
                "submit",
                store,
                new Grouping<>(job -> 1, job -> List.of(), job -> job.bizKey() != null, failure -> true),
                settings,
                contendedBudgetMs,
                Integer.MAX_VALUE);
    }

    /**
     * Consumers' results, each caller's batch an item ({@code List<AttemptResult>} and the like),
     * weighing its size; no two batches of a group name the same job. Only a {@link
     * PoisonResultException} is taken for one batch's fault: any other failure may come after the
     * commit (the engine's work on the written results), where writing the batches again would
     * answer them as not current.
     *
     * @param store writes a list of batches in one transaction, all or nothing, one answer per
     *     batch in order
     * @param jobIds the jobs a batch names
     */
    public static <T, R> GroupCommit<T, R> ofResults(
            Function<List<T>, List<R>> store, Function<T, Collection<?>> jobIds, Settings settings) {
        return new GroupCommit<>(
                "result",
                store,
                new Grouping<>(
                        batch -> jobIds.apply(batch).size(),
                        jobIds,
                        batch -> true,
                        failure -> failure instanceof PoisonResultException),
                settings,
                Long.MAX_VALUE,
                2);
    }

    GroupCommit(
            String what,
            Function<List<T>, List<R>> store,
            Grouping<T> grouping,
            Settings settings,
            long contendedBudgetMs,
            int contendedSinglesAllowed) {
        this.what = what;
        this.contendedSinglesAllowed = contendedSinglesAllowed;
        this.lifecycle = new Lifecycle(what + " group commit");
        this.contendedBudgetMs = contendedBudgetMs;
        this.store = store;
        this.grouping = grouping;
        this.maxGroup = settings.maxGroup();
        this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(settings.lingerMs());
        // bounded: callers beyond it wait for room (each caller holds one request thread anyway)
        this.queue = new ArrayBlockingQueue<>(settings.maxGroup() * settings.writers() * 4);
        this.writerCount = settings.writers();
    }

    /** LATENT → STARTED: starts the writer threads. Until then each item is written alone. */
    public GroupCommit<T, R> start() {
        lifecycle.start();
        open = true;
        for (int i = 0; i < writerCount; i++) {
            Thread t = DaemonThreads.thread("hourglass-" + what + "-writer-" + i, this::writeGroups);
            writers.add(t);
            t.start();
        }
        return this;
    }

    /** Writes one item with whatever else is being written now; returns once it is committed. */
    public R write(T item) {
        if (!open) {
            return store.apply(List.of(item)).get(0);
        }
        long now = System.nanoTime();
        boolean closeBehind = now - lastArrival.getAndSet(now) < lingerNanos;
        Pending<T, R> pending = new Pending<>(item, new CompletableFuture<>(), closeBehind);
        try {
            queue.put(pending);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted before the " + what + " was written", e);
        }
        if (!open) {
            drainAfterClose();
        }
        try {
            return pending.answer().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // the item may still be committed: an interrupted caller learns nothing either way, as
            // one whose connection dropped (a submit's retry with its bizKey finds it)
            throw new StoreUnavailableException("interrupted while the " + what + " was being written", e);
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        }
    }

    /** Items waiting for a writer now (not counting the groups being written). */
    public int queued() {
        return queue.size();
    }

    private static RuntimeException unwrap(Throwable cause) {
        Throwable c = cause instanceof CompletionException && cause.getCause() != null ? cause.getCause() : cause;
        return c instanceof RuntimeException r ? r : new IllegalStateException(c);
    }

    private void writeGroups() {
        List<Pending<T, R>> group = new ArrayList<>();
        // items left out of the group just written (over its weight, or a key already in it): the
        // next group starts with them
        List<Pending<T, R>> carried = new ArrayList<>();
        while (open || !queue.isEmpty() || !carried.isEmpty()) {
            try {
                if (!gathering.tryLock(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                try {
                    if (carried.isEmpty()) {
                        Pending<T, R> first = queue.poll(100, TimeUnit.MILLISECONDS);
                        if (first == null) {
                            continue;
                        }
                        carried.add(first);
                        linger(carried);
                    }
                    fill(group, carried);
                } finally {
                    gathering.unlock();
                }
                write(group);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (RuntimeException | Error e) {
                // never leave a caller waiting for ever, whatever broke
                group.forEach(p -> p.answer().completeExceptionally(e));
                carried.forEach(p -> p.answer().completeExceptionally(e));
                carried.clear();
                LOG.error("a {} group failed unexpectedly", what, e);
            } finally {
                group.clear();
            }
        }
    }

    /**
     * Waits up to the linger for more items after the first, when it came close behind another one
     * (more are likely to follow), until the group is full or the group commit closes.
     */
    private void linger(List<Pending<T, R>> carried) throws InterruptedException {
        if (lingerNanos == 0 || !carried.get(0).closeBehind()) {
            return;
        }
        long deadline = System.nanoTime() + lingerNanos;
        int weight = grouping.weight().applyAsInt(carried.get(0).item());
        while (weight < maxGroup && open) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            // in slices, so that a close ends a long linger
            Pending<T, R> p = queue.poll(Math.min(left, LINGER_SLICE_NANOS), TimeUnit.NANOSECONDS);
            if (p == null) {
                continue;
            }
            carried.add(p);
            weight += grouping.weight().applyAsInt(p.item());
        }
    }

    /**
     * Makes the next group of {@code carried} (left in it: what does not fit) and of the queue; the
     * queue is read only while nothing was left out, so items keep their order.
     */
    private void fill(List<Pending<T, R>> group, List<Pending<T, R>> carried) {
        List<Pending<T, R>> candidates = new ArrayList<>(carried);
        carried.clear();
        int next = 0;
        try {
            next = take(group, carried, candidates, new HashSet<>());
        } finally {
            // whatever happened, no candidate is dropped unanswered
            carried.addAll(candidates.subList(next, candidates.size()));
        }
    }

    /** Fills {@code group} from {@code candidates}, then the queue; how many candidates it looked at. */
    private int take(
            List<Pending<T, R>> group, List<Pending<T, R>> carried, List<Pending<T, R>> candidates, Set<Object> keys) {
        int weight = 0;
        int next = 0;
        while (weight < maxGroup) {
            Pending<T, R> p =
                    next < candidates.size() ? candidates.get(next++) : carried.isEmpty() ? queue.poll() : null;
            if (p == null) {
                break;
            }
            int w = grouping.weight().applyAsInt(p.item());
            Collection<?> own = grouping.exclusiveKeys().apply(p.item());
            if (!group.isEmpty() && (weight + w > maxGroup || own.stream().anyMatch(keys::contains))) {
                carried.add(p);
                continue;
            }
            group.add(p);
            keys.addAll(own);
            weight += w;
        }
        return next;
    }

    private void write(List<Pending<T, R>> group) {
        try {
            answer(group, store.apply(items(group)));
        } catch (StoreContendedException e) {
            if (group.size() == 1) {
                group.get(0).answer().completeExceptionally(e);
                return;
            }
            // usually one row another transaction holds (a node frozen mid-commit): alone, only
            // that item waits again and fails; the database is up, so the others go through
            LOG.warn(
                    "a group of {} {}s timed out on a lock ({}); writing it again in parts",
                    group.size(),
                    what,
                    e.getMessage());
            writeAfterContention(group);
        } catch (StoreUnavailableException | StoreOutcomeUnknownException e) {
            // the second: the group may be stored, so writing it again could store it twice
            group.forEach(p -> p.answer().completeExceptionally(e));
        } catch (RuntimeException e) {
            if (group.size() == 1 || !grouping.itemAtFault().test(e)) {
                group.forEach(p -> p.answer().completeExceptionally(e));
                return;
            }
            // nothing of the group was written; alone, only the items at fault fail
            LOG.debug("a group of {} {}s failed ({}); writing them one by one", group.size(), what, e.toString());
            writeOneByOne(group, Long.MAX_VALUE);
        }
    }

    private List<T> items(List<Pending<T, R>> group) {
        return group.stream().map(Pending::item).toList();
    }

    private void answer(List<Pending<T, R>> group, List<R> answers) {
        for (int i = 0; i < group.size(); i++) {
            group.get(i).answer().complete(answers.get(i));
        }
    }

    private void writeAfterContention(List<Pending<T, R>> group) {
        List<Pending<T, R>> unkeyed = group.stream()
                .filter(p -> !grouping.mayContend().test(p.item()))
                .toList();
        List<Pending<T, R>> keyed =
                group.stream().filter(p -> grouping.mayContend().test(p.item())).toList();
        if (!unkeyed.isEmpty()) {
            try {
                answer(unkeyed, store.apply(items(unkeyed)));
            } catch (StoreUnavailableException | StoreOutcomeUnknownException e) {
                // contended as well (the server itself is stalled), or the outcome is not known
                group.forEach(p -> p.answer().completeExceptionally(e));
                return;
            } catch (RuntimeException e) {
                writeOneByOne(unkeyed, Long.MAX_VALUE);
            }
        }
        writeOneByOne(keyed, contendedBudgetMs);
    }

    /**
     * Each alone; once the database turns out unreachable, or {@code budgetMs} is spent or {@code
     * contendedSinglesAllowed} writes have timed out when a write is contended, the rest fail at
     * once with that error.
     */
    private void writeOneByOne(List<Pending<T, R>> jobs, long budgetMs) {
        long started = System.nanoTime();
        int contended = 0;
        for (int i = 0; i < jobs.size(); i++) {
            Pending<T, R> p = jobs.get(i);
            try {
                p.answer().complete(store.apply(List.of(p.item())).get(0));
            } catch (StoreContendedException e) {
                p.answer().completeExceptionally(e);
                contended++;
                if (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) >= budgetMs
                        || contended >= contendedSinglesAllowed) {
                    jobs.subList(i + 1, jobs.size())
                            .forEach(rest -> rest.answer().completeExceptionally(e));
                    return;
                }
            } catch (StoreUnavailableException | StoreOutcomeUnknownException e) {
                jobs.subList(i, jobs.size()).forEach(rest -> rest.answer().completeExceptionally(e));
                return;
            } catch (RuntimeException e) {
                p.answer().completeExceptionally(e);
            }
        }
    }

    /** An item queued as the writers stopped: written here, so that it is not left waiting. */
    private void drainAfterClose() {
        List<Pending<T, R>> left = new ArrayList<>();
        queue.drainTo(left);
        for (Pending<T, R> p : left) {
            write(List.of(p));
        }
    }

    /** Writes what is queued (waits up to {@code waitMs} for it), then stops the writers. */
    public void close(long waitMs) {
        closeAll(waitMs, List.of(this));
    }

    /**
     * Closes several side by side: what each has queued is written by its writers within one
     * {@code waitMs} for all, then what is left on the calling thread.
     */
    public static void closeAll(long waitMs, List<GroupCommit<?, ?>> groupCommits) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        for (GroupCommit<?, ?> g : groupCommits) {
            g.lifecycle.close();
            g.open = false;
        }
        for (GroupCommit<?, ?> g : groupCommits) {
            g.finishClose(deadline);
        }
    }

    private void finishClose(long deadline) {
        for (Thread t : writers) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            try {
                t.join(Math.max(1, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        drainAfterClose();
    }

    @Override
    public void close() {
        close(5_000);
    }
}
