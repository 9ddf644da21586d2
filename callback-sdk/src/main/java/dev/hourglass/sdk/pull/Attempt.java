package dev.hourglass.sdk.pull;

import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.Reservation;
import dev.hourglass.api.ResultReport;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One reservation in this consumer's hands, from the reserve that brought it to its result.
 *
 * <p>Its deadline is kept on this machine's monotonic clock, never compared with the node's (the
 * clocks of two machines disagree). The node sets a deadline of (its now + TTR) when it serves a
 * touch, which is after this side sent it, so a touch counts from its send and that is never later
 * than the node's deadline. A reserve counts from its answer's arrival instead: a long poll may
 * wait many TTRs before the node reserves anything, so its send says nothing of when it did; the
 * node answers as soon as it has reserved, so the arrival is late by the answer's transit only,
 * which the half TTR left by every renewal covers. Renewals are due at the half TTR.
 *
 * <p>Thread-safe: the worker, the touch scheduler and the result sender read it at once.
 */
final class Attempt {
    private final Reservation reservation;
    private final long ttrNanos;
    private volatile long heldSinceNanos;
    private volatile boolean finished;
    private volatile Future<?> nextTouch;
    private final AtomicBoolean lost = new AtomicBoolean();

    Attempt(Reservation reservation, long arrivedAtNanos, long ttrNanos) {
        this.reservation = reservation;
        this.heldSinceNanos = arrivedAtNanos;
        this.ttrNanos = ttrNanos;
    }

    Reservation reservation() {
        return reservation;
    }

    String jobId() {
        return reservation.getId();
    }

    int number() {
        return reservation.getAttempt();
    }

    /** This side's reckoning of the node's deadline for the attempt (see the class comment). */
    long deadlineNanos() {
        return heldSinceNanos + ttrNanos;
    }

    long renewAtNanos() {
        return heldSinceNanos + ttrNanos / 2;
    }

    /** A touch sent at {@code sentAtNanos} was accepted: the node holds the job until then + TTR. */
    void renewed(long sentAtNanos) {
        heldSinceNanos = sentAtNanos;
    }

    void nextTouch(Future<?> touch) {
        nextTouch = touch;
    }

    /** The handler is done: no more touches (one already sent may still answer; it is ignored). */
    void finish() {
        finished = true;
        Future<?> touch = nextTouch;
        if (touch != null) {
            touch.cancel(false);
        }
    }

    boolean isFinished() {
        return finished;
    }

    /** True the first time only, so a reservation is counted lost once, by touch or by result. */
    boolean markLost() {
        return lost.compareAndSet(false, true);
    }

    ResultReport report(PullResult result) {
        return new ResultReport()
                .setJobId(jobId())
                .setAttempt(number())
                .setStatus(result.status())
                .setMessage(clipped(result.message()))
                .setRetryAfterMs(result.retryAfterMs())
                .setDelayMs(result.delayMs());
    }

    /** RELEASE at once: for a reservation no handler started. */
    ResultReport release() {
        return new ResultReport().setJobId(jobId()).setAttempt(number()).setStatus(CallbackStatus.RELEASE);
    }

    @Override
    public String toString() {
        return "job " + jobId() + " attempt " + number();
    }

    /**
     * The node keeps 1,024 characters of a message; a longer one only makes a batch of results
     * bigger, and a batch beyond the node's request limit would be refused whole.
     */
    static String clipped(String message) {
        return message == null || message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE);
    }

    static final int MAX_MESSAGE = 1_024;
}
