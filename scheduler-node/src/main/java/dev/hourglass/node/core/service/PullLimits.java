package dev.hourglass.node.core.service;

/** The bounds of pull consumers' requests (docs/api.md, "Pull consumers"). */
public final class PullLimits {
    public static final int MAX_SERVICES = 10;
    public static final int MAX_RESERVE = 100;
    public static final long MIN_TTR_MS = 1_000;
    public static final long MAX_TTR_MS = 3_600_000;
    public static final long MAX_WAIT_MS = 30_000;
    /** A reservation lives at most this long from when it was made, touches included. */
    public static final long MAX_LIFE_MS = 12 * 3_600_000L;

    public static final int MAX_RESULTS = 1_000;
    public static final int MAX_PEEK = 100;

    private PullLimits() {}

    /** The TTR a reservation without one gets: the job's timeout, clamped to the TTR's bounds. */
    public static long defaultTtr(long timeoutMs) {
        return Math.min(MAX_TTR_MS, Math.max(MIN_TTR_MS, timeoutMs));
    }
}
