package dev.hourglass.node.store.mybatis;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Tokens that tag the rows one conditional update won, so the statements after it in the same
 * transaction read or move exactly those rows. Unique per node and per process start.
 */
final class ClaimTokens {
    private final String prefix;
    private final AtomicLong counter = new AtomicLong();

    ClaimTokens(String nodeId) {
        this.prefix = nodeId + ':' + Long.toString(System.nanoTime() & 0xffffffffL, 36) + ':';
    }

    String next() {
        return prefix + Long.toString(counter.incrementAndGet(), 36);
    }
}
