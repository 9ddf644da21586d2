package dev.hourglass.sdk;

import dev.hourglass.api.JobState;
import java.time.Instant;

/**
 * The filters of a job search ({@code GET /api/v1/jobs}, docs/api.md "Jobs"): every one optional,
 * all of them applied together. Live jobs come first, then final ones, each part in job id order,
 * or in fire-time order when {@link #fireFrom} or {@link #fireTo} is set. A page's {@code
 * nextCursor} belongs to these filters: pass it back with the same ones.
 */
public final class JobSearch {
    private String bizKey;
    private String schedule;
    private JobState state;
    private String service;
    private Instant fireFrom;
    private Instant fireTo;
    private Integer limit;
    private String cursor;

    /** The job with this bizKey (at most one per app). */
    public JobSearch bizKey(String bizKey) {
        this.bizKey = bizKey;
        return this;
    }

    /** The jobs a schedule submitted. */
    public JobSearch schedule(String schedule) {
        this.schedule = schedule;
        return this;
    }

    /** Jobs in this state. */
    public JobSearch state(JobState state) {
        this.state = state;
        return this;
    }

    /** Jobs of this service. */
    public JobSearch service(String service) {
        this.service = service;
        return this;
    }

    /** Jobs whose fire time is at or after this instant. */
    public JobSearch fireFrom(Instant fireFrom) {
        this.fireFrom = fireFrom;
        return this;
    }

    /** Jobs whose fire time is before this instant. */
    public JobSearch fireTo(Instant fireTo) {
        this.fireTo = fireTo;
        return this;
    }

    /** Jobs per page, 1..500 (the node's default: 50). */
    public JobSearch limit(int limit) {
        this.limit = limit;
        return this;
    }

    /** The page after the one whose {@code nextCursor} this is. */
    public JobSearch cursor(String cursor) {
        this.cursor = cursor;
        return this;
    }

    /** The query string of the search, each value encoded; empty when nothing is set. */
    String query() {
        StringBuilder q = new StringBuilder();
        add(q, "bizKey", bizKey);
        add(q, "schedule", schedule);
        add(q, "state", state == null ? null : state.name());
        add(q, "service", service);
        add(q, "fireFrom", fireFrom == null ? null : Long.toString(fireFrom.toEpochMilli()));
        add(q, "fireTo", fireTo == null ? null : Long.toString(fireTo.toEpochMilli()));
        add(q, "limit", limit == null ? null : Integer.toString(limit));
        add(q, "cursor", cursor);
        return q.toString();
    }

    private static void add(StringBuilder q, String name, String value) {
        if (value != null) {
            q.append(q.isEmpty() ? '?' : '&')
                    .append(name)
                    .append('=')
                    .append(java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8));
        }
    }
}
