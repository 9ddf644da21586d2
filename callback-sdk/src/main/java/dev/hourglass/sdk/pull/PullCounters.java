package dev.hourglass.sdk.pull;

import dev.hourglass.api.CallbackStatus;
import java.util.concurrent.atomic.LongAdder;

/** The counts {@link PullConsumer} shows. Thread-safe. */
final class PullCounters {
    final LongAdder reserved = new LongAdder();
    final LongAdder succeeded = new LongAdder();
    final LongAdder retried = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder released = new LongAdder();
    final LongAdder lostReservations = new LongAdder();
    final LongAdder resultsGivenUp = new LongAdder();

    /** A result the node accepted. */
    void accepted(CallbackStatus status) {
        switch (status) {
            case SUCCESS -> succeeded.increment();
            case RETRY -> retried.increment();
            case FAIL -> failed.increment();
            case RELEASE -> released.increment();
        }
    }
}
