package dev.hourglass.node.firing;

import dev.hourglass.node.job.Job;

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
}
