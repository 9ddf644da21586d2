package dev.hourglass.node.core.job;

import dev.hourglass.api.JobState;

/**
 * A job search; null fields do not filter. {@code app == null} searches every app (admin).
 * {@code bizKeyPrefix}: jobs whose bizKey starts with it (a range of the (app, bizKey) index).
 * {@code cursor} is the opaque {@link JobPage#nextCursor()} of the previous page.
 */
public record JobQuery(
        String app,
        String bizKey,
        String bizKeyPrefix,
        JobState state,
        String service,
        Long fireFrom,
        Long fireTo,
        int limit,
        String cursor) {

    /** A search without a bizKey prefix. */
    public JobQuery(
            String app,
            String bizKey,
            JobState state,
            String service,
            Long fireFrom,
            Long fireTo,
            int limit,
            String cursor) {
        this(app, bizKey, null, state, service, fireFrom, fireTo, limit, cursor);
    }
}
