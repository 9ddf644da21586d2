package dev.hourglass.sdk.pull;

import dev.hourglass.api.HourglassException;
import dev.hourglass.sdk.HourglassClient;
import java.lang.System.Logger.Level;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the reservations of running handlers alive: at half its TTR a running attempt is touched
 * for another TTR, and again at the half of that, for as long as its handler runs.
 *
 * <p>Worked example, TTR 1 s, a handler of 1.5 s reserved at t=0: touch at 0.5 s (node deadline
 * now ≥ 1.5 s), touch at 1.0 s (≥ 2.0 s), result at 1.5 s, accepted. Times are counted from when
 * each request was sent (see {@link Attempt}), so they hold whatever the node's clock says.
 *
 * <p>Failures: CONFLICT or NOT_FOUND means the node no longer holds the attempt (its deadline
 * passed first, or the job is gone): the reservation is counted lost once and no longer touched;
 * the handler runs on and its result will be refused too. A transient failure (the node not
 * reachable) is tried again after a tenth of the TTR, as long as the handler runs. Any other
 * refusal (a TTR beyond what the node allows a reservation) stops the touches, logged.
 *
 * <p>The touches are sent asynchronously; the scheduler's one thread only starts them, so a slow
 * node delays no other reservation's touch.
 */
final class TouchKeeper {
    private static final System.Logger LOG = System.getLogger(PullConsumer.class.getName());

    private final HourglassClient client;
    private final ScheduledExecutorService scheduler;
    private final long ttrMs;
    private final PullCounters counters;

    TouchKeeper(HourglassClient client, ScheduledExecutorService scheduler, long ttrMs, PullCounters counters) {
        this.client = client;
        this.scheduler = scheduler;
        this.ttrMs = ttrMs;
        this.counters = counters;
    }

    /** Touches {@code attempt} from its half TTR on, until {@link Attempt#finish()}. */
    void watch(Attempt attempt) {
        scheduleAt(attempt, attempt.renewAtNanos());
    }

    private void scheduleAt(Attempt attempt, long atNanos) {
        if (attempt.isFinished()) {
            return;
        }
        long delay = Math.max(0, atNanos - System.nanoTime());
        try {
            attempt.nextTouch(scheduler.schedule(() -> touch(attempt), delay, TimeUnit.NANOSECONDS));
        } catch (RejectedExecutionException stopped) {
            // the consumer has stopped and its handlers are done or abandoned: nothing more to keep
        }
    }

    private void touch(Attempt attempt) {
        if (attempt.isFinished()) {
            return;
        }
        long sentAt = System.nanoTime();
        client.touchAsync(attempt.jobId(), attempt.number(), ttrMs).whenComplete((renewed, error) -> {
            if (attempt.isFinished()) {
                return; // its result is on its way: a CONFLICT now says nothing about the reservation
            }
            if (error == null) {
                attempt.renewed(sentAt);
                scheduleAt(attempt, attempt.renewAtNanos());
                return;
            }
            HourglassException e = Failures.unwrap(error);
            if (Failures.meansLost(e.code())) {
                if (attempt.markLost()) {
                    counters.lostReservations.increment();
                }
                LOG.log(
                        Level.WARNING,
                        "Reservation of {0} is lost ({1}: {2}): the node may hand the job out again,"
                                + " and the handler''s result will be refused",
                        attempt,
                        e.code(),
                        e.getMessage());
            } else if (Failures.isTransient(e.code())) {
                LOG.log(Level.DEBUG, "Touch of {0} failed, trying again: {1}", attempt, e.getMessage());
                scheduleAt(attempt, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttrMs) / 10);
            } else {
                LOG.log(
                        Level.WARNING,
                        "Touch of {0} refused ({1}: {2}); no more touches for it",
                        attempt,
                        e.code(),
                        e.getMessage());
            }
        });
    }
}
