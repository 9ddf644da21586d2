package dev.hourglass.node.store.mybatis;

/** A PULL service's row as a reservation locks it: its limits, its pause and its rate bucket. */
public class ServiceLockRow {
    public int maxInFlight;
    public Long pausedAt;
    public Integer ratePerSecond;
    public Integer rateBurst;
    /** The bucket's tokens at {@code rateAt} (ms); null: full (never used, or the limit is new). */
    public Double rateTokens;

    public Long rateAt;
}
