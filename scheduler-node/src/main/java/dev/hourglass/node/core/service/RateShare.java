package dev.hourglass.node.core.service;

import java.util.function.IntUnaryOperator;

/**
 * This node's part of a service's cluster-wide rate limit: the rate and the burst split by the
 * shards each node owns, like {@code maxInFlight} (docs/design.md, "Flow control"). The split is
 * made in thousandths, so the nodes' rates add up to the limit; each owner's burst is at least one
 * token (a bucket holds whole attempts), so with n owners the cluster's burst is at most
 * {@code burst + n}.
 */
public record RateShare(double perSecond, double burst) {

    /**
     * @param limitShare this node's share of a cluster-wide integer limit (largest remainder by
     *     shards owned: the shares of every node add up to the limit)
     * @return null when the service has no rate limit
     */
    public static RateShare of(FlowControl.RateLimit limit, IntUnaryOperator limitShare) {
        if (limit == null) {
            return null;
        }
        double perSecond = limitShare.applyAsInt(limit.perSecond() * 1_000) / 1_000.0;
        double burst = Math.max(1.0, limitShare.applyAsInt(limit.burst() * 1_000) / 1_000.0);
        return new RateShare(perSecond, burst);
    }

    /**
     * How many attempts a node with this share should hold claimed ahead: what its bucket lets
     * start within about a second, so claimed attempts wait for tokens briefly, not until their
     * deadlines near.
     */
    public int claimAhead() {
        return (int) Math.min(Integer.MAX_VALUE, Math.ceil(burst + perSecond));
    }
}
