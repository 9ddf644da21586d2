package dev.hourglass.node.core.port;

/** Hears what pull consumers' reserves do on this node, for metrics. Must be quick and not throw. */
public interface PullListener {
    /**
     * A reserve through this node was answered with {@code jobs} jobs (0: its wait ran out) after
     * {@code waitedMs} (0: answered at once, without waiting).
     */
    default void answered(int jobs, long waitedMs) {}

    PullListener NONE = new PullListener() {};
}
