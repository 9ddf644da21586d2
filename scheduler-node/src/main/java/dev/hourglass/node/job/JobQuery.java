package dev.hourglass.node.job;

import dev.hourglass.api.JobState;

/**
 * A job search; null fields do not filter. {@code app == null} searches every app (admin).
 * {@code cursor} is the opaque {@link JobPage#nextCursor()} of the previous page.
 */
public record JobQuery(
        String app,
        String bizKey,
        JobState state,
        String service,
        Long fireFrom,
        Long fireTo,
        int limit,
        String cursor) {}
