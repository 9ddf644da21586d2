package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;

/** Hears what the engine does, for metrics. Called on engine threads: must be quick and not throw. */
public interface FiringListener {
    /** A claimed attempt is about to be delivered; lateness is {@code firedAt - job.fireAt()}. */
    default void fired(Job job, long firedAt) {}

    /** An attempt's result was written. */
    default void ended(AttemptResult result) {}

    /** A claim transaction took {@code nanos} for {@code jobs} jobs. */
    default void claimed(int jobs, long nanos) {}

    /** A result write took {@code nanos} for {@code results} results. */
    default void wrote(int results, long nanos) {}

    /** A result the database refused was set aside: its job ended FAILED (see OutcomeWriter). */
    default void quarantined(AttemptResult result) {}

    FiringListener NONE = new FiringListener() {};

    /** Both hear every event, {@code first} first. */
    static FiringListener both(FiringListener first, FiringListener second) {
        return new FiringListener() {
            @Override
            public void fired(Job job, long firedAt) {
                first.fired(job, firedAt);
                second.fired(job, firedAt);
            }

            @Override
            public void ended(AttemptResult result) {
                first.ended(result);
                second.ended(result);
            }

            @Override
            public void claimed(int jobs, long nanos) {
                first.claimed(jobs, nanos);
                second.claimed(jobs, nanos);
            }

            @Override
            public void wrote(int results, long nanos) {
                first.wrote(results, nanos);
                second.wrote(results, nanos);
            }

            @Override
            public void quarantined(AttemptResult result) {
                first.quarantined(result);
                second.quarantined(result);
            }
        };
    }
}
