package dev.hourglass.sdk.pull;

import dev.hourglass.api.HourglassException;
import dev.hourglass.api.Reservation;
import dev.hourglass.api.ReserveRequest;
import dev.hourglass.sdk.HourglassClient;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The reserving loop of a {@link PullConsumer}, on its own thread: take the free worker slots (up
 * to the batch size; waiting while there are none), long-poll {@code POST /api/v1/reserve} for that
 * many jobs, give back the slots it did not fill, hand each reservation on. One reserve is under
 * way at a time.
 *
 * <p>So the consumer never holds more reservations than it has workers: a job is reserved only
 * when a worker is free to start it, and its TTR is not spent waiting in a queue. An empty answer
 * is followed by the next reserve no sooner than {@link #MIN_EMPTY_INTERVAL_NANOS} after the last
 * was sent, so a consumer without a long poll does not spin. A failed reserve is tried again after
 * 100 ms doubling to 5 s, logged each time.
 *
 * <p>Ends once the slots are closed, after its reserve under way has answered: what that answer
 * brings is handed on like any other, and the hand-off releases it.
 */
final class ReserveLoop implements Runnable {
    private static final System.Logger LOG = System.getLogger(PullConsumer.class.getName());
    static final long MIN_EMPTY_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final HourglassClient client;
    private final List<String> services;
    private final int batchSize;
    private final long ttrMs;
    private final long waitMs;
    private final WorkSlots slots;
    private final Consumer<Attempt> handOn;
    private final PullCounters counters;

    ReserveLoop(
            HourglassClient client,
            List<String> services,
            int batchSize,
            long ttrMs,
            long waitMs,
            WorkSlots slots,
            Consumer<Attempt> handOn,
            PullCounters counters) {
        this.client = client;
        this.services = List.copyOf(services);
        this.batchSize = batchSize;
        this.ttrMs = ttrMs;
        this.waitMs = waitMs;
        this.slots = slots;
        this.handOn = handOn;
        this.counters = counters;
    }

    @Override
    public void run() {
        long backoff = 0;
        long ttrNanos = TimeUnit.MILLISECONDS.toNanos(ttrMs);
        try {
            while (true) {
                int room = slots.take(batchSize);
                if (room == 0) {
                    return;
                }
                long sentAt = System.nanoTime();
                List<Reservation> reserved;
                try {
                    reserved = client.reserve(new ReserveRequest()
                            .setServices(services)
                            .setMax(room)
                            .setTtrMs(ttrMs)
                            .setWaitMs(waitMs > 0 ? waitMs : null));
                } catch (RuntimeException failure) { // a HourglassException, or an answer that could not be read
                    HourglassException e = Failures.unwrap(failure);
                    slots.give(room);
                    backoff = backoff == 0 ? FIRST_BACKOFF_NANOS : Math.min(MAX_BACKOFF_NANOS, backoff * 2);
                    LOG.log(
                            Level.WARNING,
                            "Reserve of {0} failed ({1}: {2}); trying again in {3} ms",
                            services,
                            e.code(),
                            e.getMessage(),
                            TimeUnit.NANOSECONDS.toMillis(backoff));
                    if (slots.awaitClosed(backoff)) {
                        return;
                    }
                    continue;
                }
                long arrivedAt = System.nanoTime();
                backoff = 0;
                slots.give(room - reserved.size());
                counters.reserved.add(reserved.size());
                for (Reservation reservation : reserved) {
                    handOn.accept(new Attempt(reservation, arrivedAt, ttrNanos));
                }
                long idle = MIN_EMPTY_INTERVAL_NANOS - (arrivedAt - sentAt);
                if (reserved.isEmpty() && idle > 0 && slots.awaitClosed(idle)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
