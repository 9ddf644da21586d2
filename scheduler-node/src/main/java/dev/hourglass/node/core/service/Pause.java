package dev.hourglass.node.core.service;

/**
 * Whether a service is paused, since when and by whom, and when it was last resumed (null: never).
 * While paused no new attempt of it starts anywhere in the cluster; its due jobs wait. The
 * OVERDUE alert counts a job's wait from the later of its fire time and {@code resumedAt}.
 */
public record Pause(Long pausedAt, String pausedBy, Long resumedAt) {
    public static final Pause NEVER = new Pause(null, null, null);

    public boolean paused() {
        return pausedAt != null;
    }

    /**
     * How long a job due at {@code dueAt} has been kept waiting at {@code now} by the service's
     * receivers rather than by a pause: 0 while paused, and counted from the resume after one.
     */
    public long overdueMs(long dueAt, long now) {
        if (paused()) {
            return 0;
        }
        long since = resumedAt == null ? dueAt : Math.max(dueAt, resumedAt);
        return Math.max(0, now - since);
    }
}
