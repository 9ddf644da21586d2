package dev.hourglass.sdk.pull;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.ResultAnswer;
import dev.hourglass.api.ResultReport;
import dev.hourglass.sdk.HourglassClient;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Sends the consumer's results in batches ({@code POST /api/v1/results}): a batch leaves when it
 * holds {@code maxBatch} results or {@code linger} after its first result, whichever comes first.
 *
 * <p>Never drops a result silently. A batch that fails as a whole for a transient reason (the node
 * not reachable, 503, 500, 429) and a result refused for such a reason are sent again with a
 * backoff of 100 ms doubling to 2 s, until the attempt's deadline: past it the node has counted the
 * attempt as timed out and would refuse the result, so it is given up, logged and counted. A result
 * refused with CONFLICT or NOT_FOUND means a lost reservation (counted once per reservation) unless
 * it was a resend, where an earlier send that got no answer most likely applied it. Any other
 * refusal is given up at once, logged and counted.
 *
 * <p>Threading: {@link #submit} from any thread; the batches are built and sent by the sender's
 * own thread. After {@link #close} has flushed and the thread ended, a late result (of a handler
 * that outlived the stop timeout) is sent at once on its own, tried once.
 */
final class ResultSender {
    private static final System.Logger LOG = System.getLogger(PullConsumer.class.getName());
    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final Pending CLOSE = new Pending(null, null);

    private final HourglassClient client;
    private final PullCounters counters;
    private final int maxBatch;
    private final long lingerNanos;
    private final BlockingQueue<Pending> incoming = new LinkedBlockingQueue<>();
    /** Results waiting for their next try; the sender thread's alone. */
    private final List<Pending> waiting = new ArrayList<>();

    private final Thread thread;
    private boolean done; // guarded by this
    private boolean closing; // the sender thread's alone
    private volatile long closeDeadlineNanos;

    ResultSender(HourglassClient client, PullCounters counters, int maxBatch, long lingerNanos, String threadName) {
        this.client = client;
        this.counters = counters;
        this.maxBatch = maxBatch;
        this.lingerNanos = lingerNanos;
        this.thread = DaemonThreads.named(threadName, this::run);
    }

    void start() {
        thread.start();
    }

    void submit(Attempt attempt, ResultReport report) {
        Pending pending = new Pending(attempt, report);
        synchronized (this) {
            if (!done) {
                incoming.add(pending);
                return;
            }
        }
        sendAlone(List.of(pending));
    }

    /**
     * Sends what is queued and what arrives until the queue is empty, trying again until {@code
     * deadlineNanos} at the latest (every result is sent at least once); true when all was settled
     * by then.
     */
    boolean close(long deadlineNanos) throws InterruptedException {
        closeDeadlineNanos = deadlineNanos;
        incoming.add(CLOSE);
        long left = deadlineNanos - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.timedJoin(thread, left);
        }
        return !thread.isAlive();
    }

    private void run() {
        try {
            List<Pending> batch;
            while ((batch = nextBatch()) != null) {
                if (!batch.isEmpty()) {
                    deliver(batch);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            List<Pending> left = new ArrayList<>(waiting);
            synchronized (this) {
                done = true;
                incoming.drainTo(left);
            }
            left.remove(CLOSE);
            if (!left.isEmpty()) {
                sendAlone(left);
            }
        }
    }

    /** Due retries first, then new results; empty when there is nothing yet; null when closed and all settled. */
    private List<Pending> nextBatch() throws InterruptedException {
        List<Pending> batch = new ArrayList<>();
        long now = System.nanoTime();
        long nextTry = Long.MAX_VALUE;
        for (Iterator<Pending> it = waiting.iterator(); it.hasNext(); ) {
            Pending pending = it.next();
            // a stop's deadline brings every try forward to it: the last chance before giving up
            long due = closing ? Math.min(pending.nextTryNanos, closeDeadlineNanos) : pending.nextTryNanos;
            if (due <= now && batch.size() < maxBatch) {
                batch.add(pending);
                it.remove();
            } else {
                nextTry = Math.min(nextTry, due);
            }
        }
        if (batch.isEmpty()) {
            if (closing && incoming.isEmpty() && waiting.isEmpty()) {
                return null;
            }
            Pending first =
                    nextTry == Long.MAX_VALUE ? incoming.take() : incoming.poll(nextTry - now, TimeUnit.NANOSECONDS);
            if (first == null || first == CLOSE) {
                closing |= first == CLOSE;
                return batch;
            }
            batch.add(first);
        }
        long lingerEnd = System.nanoTime() + lingerNanos;
        while (batch.size() < maxBatch) {
            Pending next =
                    closing ? incoming.poll() : incoming.poll(lingerEnd - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (next == null) {
                break;
            }
            if (next == CLOSE) {
                closing = true; // flush now: no more lingering
            } else {
                batch.add(next);
            }
        }
        return batch;
    }

    private void deliver(List<Pending> batch) {
        List<ResultAnswer> answers;
        try {
            answers = client.reportResults(reports(batch));
        } catch (RuntimeException failure) { // a HourglassException, or an answer that could not be read
            HourglassException e = Failures.unwrap(failure);
            for (Pending pending : batch) {
                if (Failures.isTransient(e.code())) {
                    tryLater(pending, e);
                } else {
                    giveUp(pending, e.code() + ": " + e.getMessage());
                }
            }
            return;
        }
        List<ResultAnswer> matched = match(batch, answers);
        for (int i = 0; i < batch.size(); i++) {
            Pending pending = batch.get(i);
            ResultAnswer answer = matched.get(i);
            if (answer == null) {
                tryLater(pending, new HourglassException(ErrorCode.INTERNAL, "no answer for it"));
            } else if (!settle(pending, answer)) {
                tryLater(pending, new HourglassException(answer.getErrorCode(), answer.getErrorMessage()));
            }
        }
    }

    /** Counts or logs an answer; false when the result is worth sending again. */
    private boolean settle(Pending pending, ResultAnswer answer) {
        if (answer.isAccepted()) {
            counters.accepted(pending.report.getStatus());
            return true;
        }
        if (Failures.isTransient(answer.getErrorCode())) {
            return false;
        }
        if (Failures.meansLost(answer.getErrorCode()) && pending.tries > 1) {
            LOG.log(
                    Level.INFO,
                    "Result {0} of {1} refused on a resend ({2}): the earlier send that got no answer"
                            + " most likely applied it",
                    pending.report.getStatus(),
                    pending.attempt,
                    answer.getErrorCode());
        } else if (Failures.meansLost(answer.getErrorCode())) {
            if (pending.attempt.markLost()) {
                counters.lostReservations.increment();
            }
            LOG.log(
                    Level.WARNING,
                    "Result {0} of {1} refused, the reservation was lost ({2}: {3})",
                    pending.report.getStatus(),
                    pending.attempt,
                    answer.getErrorCode(),
                    answer.getErrorMessage());
        } else {
            giveUp(pending, answer.getErrorCode() + ": " + answer.getErrorMessage());
        }
        return true;
    }

    private void tryLater(Pending pending, HourglassException reason) {
        long now = System.nanoTime();
        long backoff = Math.min(MAX_BACKOFF_NANOS, FIRST_BACKOFF_NANOS << Math.min(pending.tries - 1, 10));
        long giveUpAt = pending.attempt.deadlineNanos();
        if (closing) {
            giveUpAt = Math.min(giveUpAt, closeDeadlineNanos);
        }
        if (now + backoff > giveUpAt) {
            giveUp(pending, reason.code() + ": " + reason.getMessage());
            return;
        }
        LOG.log(Level.DEBUG, "Result of {0} not delivered, trying again: {1}", pending.attempt, reason.getMessage());
        pending.nextTryNanos = now + backoff;
        waiting.add(pending);
    }

    private void giveUp(Pending pending, String reason) {
        counters.resultsGivenUp.increment();
        LOG.log(
                Level.WARNING,
                "Gave up result {0} of {1} after {2} send(s) ({3}); the node will count the attempt as"
                        + " timed out at its deadline",
                pending.report.getStatus(),
                pending.attempt,
                pending.tries,
                reason);
    }

    /** After the sender thread ended: one try, on the client's threads. */
    private void sendAlone(List<Pending> results) {
        client.reportResultsAsync(reports(results)).whenComplete((answers, error) -> {
            List<ResultAnswer> matched = error == null ? match(results, answers) : null;
            for (int i = 0; i < results.size(); i++) {
                Pending pending = results.get(i);
                if (error != null) {
                    giveUp(pending, Failures.unwrap(error).getMessage());
                } else if (matched.get(i) == null) {
                    giveUp(pending, "no answer for it");
                } else if (!settle(pending, matched.get(i))) {
                    giveUp(
                            pending,
                            matched.get(i).getErrorCode() + ": "
                                    + matched.get(i).getErrorMessage());
                }
            }
        });
    }

    private static List<ResultReport> reports(List<Pending> batch) {
        List<ResultReport> reports = new ArrayList<>(batch.size());
        for (Pending pending : batch) {
            pending.tries++;
            reports.add(pending.report);
        }
        return reports;
    }

    /** The answer to each result, by job and attempt (the node answers in order; this does not rely on it). */
    private static List<ResultAnswer> match(List<Pending> batch, List<ResultAnswer> answers) {
        Map<String, ResultAnswer> byAttempt = new HashMap<>();
        for (ResultAnswer answer : answers) {
            byAttempt.put(key(answer.getJobId(), answer.getAttempt()), answer);
        }
        List<ResultAnswer> matched = new ArrayList<>(batch.size());
        for (Pending pending : batch) {
            matched.add(byAttempt.get(key(pending.report.getJobId(), pending.report.getAttempt())));
        }
        return matched;
    }

    private static String key(String jobId, int attempt) {
        return jobId + "#" + attempt;
    }

    private static final class Pending {
        final Attempt attempt;
        final ResultReport report;
        int tries;
        long nextTryNanos;

        Pending(Attempt attempt, ResultReport report) {
            this.attempt = attempt;
            this.report = report;
        }
    }
}
