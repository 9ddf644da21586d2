package dev.hourglass.node.core.service;

import dev.hourglass.api.JobState;
import java.util.Set;

/**
 * A service's flow control as its owner sets it with the service (docs/api.md, "Flow control"): a
 * rate limit on attempts started, cluster-wide, and where its jobs go when they end FAILED (or
 * EXPIRED). Null parts are off. Pausing is not set here but by its own calls ({@link Pause}).
 */
public record FlowControl(RateLimit rateLimit, DeadLetter deadLetter) {
    public static final FlowControl NONE = new FlowControl(null, null);

    /**
     * At most {@code burst + perSecond × t} attempts started over any t seconds, across the cluster
     * (each owner takes its share by the shards it owns).
     */
    public record RateLimit(int perSecond, int burst) {}

    /**
     * A job of the service that ends in one of {@code on} is submitted to {@code service} (of the same
     * app) in the transaction that ends it.
     */
    public record DeadLetter(String service, Set<JobState> on) {
        public DeadLetter {
            on = Set.copyOf(on);
        }

        public boolean routes(JobState end) {
            return on.contains(end);
        }
    }
}
