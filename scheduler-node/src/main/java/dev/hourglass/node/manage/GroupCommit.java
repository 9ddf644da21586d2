package dev.hourglass.node.manage;

import dev.hourglass.node.background.DaemonThreads;
import dev.hourglass.node.background.Lifecycle;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.JobWrites.Inserted;
import dev.hourglass.node.core.port.StoreContendedException;
import dev.hourglass.node.core.port.StoreOutcomeUnknownException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit of single submits. Each submit used to be its own transaction, and its commit (a
 * log flush) was most of its cost; now concurrent callers queue their job, and a writer thread
 * takes everything queued (up to {@code maxGroup}) and stores it with one multi-row insert and one
 * commit, then answers each caller with its own job. Nothing is waited for: a writer takes what is
 * there when it is free, so a lone submit is written at once and a group forms only while a
 * commit is under way.
 *
 * <ul>
 *   <li>A caller is answered only after the commit that stored its job (or after the commit that
 *       found its bizKey taken: it gets that job, {@code created == false}; two callers with one
 *       bizKey in one group are answered as if they came one after the other).
 *   <li>A group whose transaction fails wrote nothing (it is rolled back as a whole). When the
 *       database is unavailable, every caller of the group gets that error; any other failure (one
 *       job's row refused) is retried job by job, so that only the callers whose own job fails get
 *       an error.
 *   <li>A group that timed out on a lock or lost a deadlock ({@link StoreContendedException}) is
 *       written again in two parts: the jobs without a bizKey together (no other transaction can
 *       hold their rows, so if they time out too the server itself is stalled and the whole group
 *       fails), then each job with a bizKey alone, for at most {@link #CONTENDED_BUDGET_MS}, so a
 *       stalled server cannot hold a writer for a statement timeout per job.
 *   <li>Retrying job by job stops at a database that turns out unreachable: the rest of the group
 *       gets that error at once.
 *   <li>A group whose commit lost its connection was read back by the store: stored, every caller
 *       gets its job; not stored, every caller gets UNAVAILABLE; not known (the database stayed
 *       away), every caller gets {@link StoreOutcomeUnknownException}, and the group is not
 *       written again: it may be stored.
 * </ul>
 *
 * Thread-safe. {@link #close()} writes what is queued, then stops; a submit after that is written
 * on the caller's thread.
 *
 * <p>Why not the engine's {@link dev.hourglass.node.background.BatchLoop}: that runs one batch at a
 * time and never makes its callers wait, while here {@code submits.writers} threads write groups
 * side by side (one builds its group while another's commit is under way) and a bounded queue
 * holds callers back when every writer is behind — back-pressure the API needs and the engine
 * must not have.
 */
public final class GroupCommit implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);
    /** How long the single writes after a contended group may take before the rest fail. */
    static final long CONTENDED_BUDGET_MS = 30_000;

    private final long contendedBudgetMs;

    /**
     * @param writers threads writing groups; more than one lets a group be built and sent while
     *     another one's commit waits for its log flush
     * @param maxGroup most jobs in one transaction
     */
    public record Settings(int writers, int maxGroup) {
        public Settings {
            if (writers < 1 || maxGroup < 1) {
                throw new IllegalArgumentException("writers and maxGroup must be at least 1");
            }
        }
    }

    private record Pending(Job job, CompletableFuture<Inserted> answer) {}

    private final Function<List<Job>, List<Inserted>> store;
    private final int maxGroup;
    private final BlockingQueue<Pending> queue;
    private final int writerCount;
    private final List<Thread> writers = new ArrayList<>();
    private final Lifecycle lifecycle = new Lifecycle("submit group commit");
    /** Started and not closed: submits go through the writers (else each is written alone). */
    private volatile boolean open;

    /**
     * @param store stores a list of jobs in one transaction, all or nothing, one answer per job in
     *     order ({@code JobWrites.insertAll})
     */
    public GroupCommit(Function<List<Job>, List<Inserted>> store, Settings settings) {
        this(store, settings, CONTENDED_BUDGET_MS);
    }

    /** @param contendedBudgetMs see {@link #CONTENDED_BUDGET_MS} (tests shorten it) */
    GroupCommit(Function<List<Job>, List<Inserted>> store, Settings settings, long contendedBudgetMs) {
        this.contendedBudgetMs = contendedBudgetMs;
        this.store = store;
        this.maxGroup = settings.maxGroup();
        // bounded: callers beyond it wait for room (each caller holds one request thread anyway)
        this.queue = new ArrayBlockingQueue<>(settings.maxGroup() * settings.writers() * 4);
        this.writerCount = settings.writers();
    }

    /** LATENT → STARTED: starts the writer threads. Until then each submit is written alone. */
    public GroupCommit start() {
        lifecycle.start();
        open = true;
        for (int i = 0; i < writerCount; i++) {
            Thread t = DaemonThreads.thread("hourglass-submit-writer-" + i, this::writeGroups);
            writers.add(t);
            t.start();
        }
        return this;
    }

    /** Stores one job with whatever else is being submitted now; returns once it is committed. */
    public Inserted insert(Job job) {
        if (!open) {
            return store.apply(List.of(job)).get(0);
        }
        Pending pending = new Pending(job, new CompletableFuture<>());
        try {
            queue.put(pending);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted before the job was stored", e);
        }
        if (!open) {
            drainAfterClose();
        }
        try {
            return pending.answer().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // the job may still be committed: an interrupted caller learns nothing either way, as
            // one whose connection dropped; a retry with its bizKey finds it
            throw new StoreUnavailableException("interrupted while the job was being stored", e);
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        }
    }

    /** Submits waiting for a writer now (not counting the groups being written). */
    public int queued() {
        return queue.size();
    }

    private static RuntimeException unwrap(Throwable cause) {
        Throwable c = cause instanceof CompletionException && cause.getCause() != null ? cause.getCause() : cause;
        return c instanceof RuntimeException r ? r : new IllegalStateException(c);
    }

    private void writeGroups() {
        List<Pending> group = new ArrayList<>(maxGroup);
        while (open || !queue.isEmpty()) {
            try {
                Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                group.add(first);
                queue.drainTo(group, maxGroup - 1);
                write(group);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (RuntimeException | Error e) {
                // never leave a caller waiting for ever, whatever broke
                group.forEach(p -> p.answer().completeExceptionally(e));
                LOG.error("a submit group failed unexpectedly", e);
            } finally {
                group.clear();
            }
        }
    }

    private void write(List<Pending> group) {
        try {
            answer(group, store.apply(group.stream().map(Pending::job).toList()));
        } catch (StoreContendedException e) {
            if (group.size() == 1) {
                group.get(0).answer().completeExceptionally(e);
                return;
            }
            // usually one bizKey another transaction holds (a node frozen mid-commit): alone, only
            // that job waits again and fails; the database is up, so the others go through
            LOG.warn(
                    "a group of {} submits timed out on a lock ({}); writing it again in parts",
                    group.size(),
                    e.getMessage());
            writeAfterContention(group);
        } catch (StoreUnavailableException | StoreOutcomeUnknownException e) {
            // the second: the group may be stored, so writing it again could store it twice
            group.forEach(p -> p.answer().completeExceptionally(e));
        } catch (RuntimeException e) {
            if (group.size() == 1) {
                group.get(0).answer().completeExceptionally(e);
                return;
            }
            // nothing of the group was written; alone, only the jobs at fault fail
            LOG.debug("a group of {} submits failed ({}); writing them one by one", group.size(), e.toString());
            writeOneByOne(group, Long.MAX_VALUE);
        }
    }

    private static void answer(List<Pending> group, List<Inserted> answers) {
        for (int i = 0; i < group.size(); i++) {
            group.get(i).answer().complete(answers.get(i));
        }
    }

    private void writeAfterContention(List<Pending> group) {
        List<Pending> unkeyed =
                group.stream().filter(p -> p.job().bizKey() == null).toList();
        List<Pending> keyed =
                group.stream().filter(p -> p.job().bizKey() != null).toList();
        if (!unkeyed.isEmpty()) {
            try {
                answer(unkeyed, store.apply(unkeyed.stream().map(Pending::job).toList()));
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
     * Each alone; once the database turns out unreachable, or {@code budgetMs} is spent when a write
     * is contended, the rest fail at once with that error.
     */
    private void writeOneByOne(List<Pending> jobs, long budgetMs) {
        long started = System.nanoTime();
        for (int i = 0; i < jobs.size(); i++) {
            Pending p = jobs.get(i);
            try {
                p.answer().complete(store.apply(List.of(p.job())).get(0));
            } catch (StoreContendedException e) {
                p.answer().completeExceptionally(e);
                if (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) >= budgetMs) {
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

    /** A submit queued as the writers stopped: written here, so that it is not left waiting. */
    private void drainAfterClose() {
        List<Pending> left = new ArrayList<>();
        queue.drainTo(left);
        for (Pending p : left) {
            write(List.of(p));
        }
    }

    /** Writes what is queued (waits up to {@code waitMs} for it), then stops the writers. */
    public void close(long waitMs) {
        lifecycle.close();
        open = false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
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
