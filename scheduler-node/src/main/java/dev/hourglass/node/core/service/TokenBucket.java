package dev.hourglass.node.core.service;

/**
 * A token bucket: holds up to {@code capacity} tokens, gains {@code perSecond} a second, and each
 * attempt started takes one; so over any t seconds at most {@code capacity + perSecond × t} start.
 * It starts full. Time is the caller's monotonic nanoseconds (pure, no clock of its own). Not
 * thread-safe: the caller holds its lock.
 *
 * <p>Written here rather than taken from a library: the limiters at hand either count fixed
 * windows (Resilience4j's {@code RateLimiter}, which lets twice the limit through across a window's
 * edge) or tie the burst to the rate and read their own clock (Guava's {@code RateLimiter}); this
 * one needs a burst of its own, fractional shares of a cluster-wide rate, and the engine's time.
 */
public final class TokenBucket {
    private double perNano;
    private double capacity;
    private double tokens;
    private long lastNanos;

    public TokenBucket(double perSecond, double capacity, long nowNanos) {
        set(perSecond, capacity);
        this.tokens = this.capacity;
        this.lastNanos = nowNanos;
    }

    /**
     * A bucket as it was stored: {@code tokens} held at {@code atNanos} (a bucket kept in a database
     * row, read and written under the row's lock). More than the capacity is the capacity.
     */
    public static TokenBucket restored(double perSecond, double capacity, double tokens, long atNanos) {
        TokenBucket b = new TokenBucket(perSecond, capacity, atNanos);
        b.tokens = Math.max(0, Math.min(b.capacity, tokens));
        return b;
    }

    /** The tokens held as of {@link #lastNanos()} (the last moment it was asked at). */
    public double tokens() {
        return tokens;
    }

    public long lastNanos() {
        return lastNanos;
    }

    /** A new rate or capacity, from now on; the tokens held stay, up to the new capacity. */
    public void reconfigure(double perSecond, double capacity, long nowNanos) {
        refill(nowNanos);
        set(perSecond, capacity);
        tokens = Math.min(tokens, this.capacity);
    }

    /** Takes a token if one is there. */
    public boolean tryTake(long nowNanos) {
        refill(nowNanos);
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }

    /** Takes up to {@code wanted} whole tokens; returns how many it took. */
    public int take(int wanted, long nowNanos) {
        refill(nowNanos);
        int n = (int) Math.min(wanted, Math.floor(tokens));
        tokens -= n;
        return Math.max(0, n);
    }

    /** Puts back tokens taken and not used (never above the capacity). */
    public void giveBack(int unused) {
        tokens = Math.min(capacity, tokens + unused);
    }

    /** Nanoseconds until the next whole token (0: one is there; Long.MAX_VALUE: the rate is 0). */
    public long nanosUntilToken(long nowNanos) {
        refill(nowNanos);
        if (tokens >= 1) {
            return 0;
        }
        if (perNano <= 0) {
            return Long.MAX_VALUE;
        }
        return (long) Math.ceil((1 - tokens) / perNano);
    }

    public double perSecond() {
        return perNano * 1e9;
    }

    public double capacity() {
        return capacity;
    }

    private void set(double perSecond, double capacity) {
        if (!(perSecond >= 0) || !(capacity >= 1)) {
            throw new IllegalArgumentException("rate " + perSecond + "/s, capacity " + capacity);
        }
        this.perNano = perSecond / 1e9;
        this.capacity = capacity;
    }

    private void refill(long nowNanos) {
        long elapsed = nowNanos - lastNanos;
        if (elapsed > 0) {
            tokens = Math.min(capacity, tokens + elapsed * perNano);
            lastNanos = nowNanos;
        }
    }
}
