package dev.hourglass.node.background;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one "keep running after an exception" wrapper: a background task that throws is logged and
 * its scheduler (or loop) goes on. An {@link Error} is logged too and then thrown on: a scheduler's
 * future keeps it unseen, so the log line is what tells it; a periodic task is planned again all
 * the same ({@link PeriodicTask#every}).
 */
public final class Guarded {
    private static final Logger LOG = LoggerFactory.getLogger(Guarded.class);

    private Guarded() {}

    public static Runnable of(String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.warn("{} failed, going on: {}", what, e.toString(), e);
            } catch (Error e) {
                LOG.error("{} failed", what, e);
                throw e;
            }
        };
    }
}
