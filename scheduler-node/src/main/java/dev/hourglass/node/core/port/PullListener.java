package dev.hourglass.node.core.port;

import java.util.List;

/** Hears what pull consumers' reserves do on this node, for metrics. Must be quick and not throw. */
public interface PullListener {
    /**
     * A reserve through this node was answered at {@code at} with {@code jobs} (none: its wait ran
     * out) after waiting {@code waitedMs} (0: answered at once). Each job's lateness is {@code at}
     * less its due time: how long it was ready before a consumer of this node got it.
     */
    default void answered(List<ReservationStore.HeldJob> jobs, long waitedMs, long at) {}

    PullListener NONE = new PullListener() {};
}
