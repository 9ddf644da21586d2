package dev.hourglass.node.core.schedule;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;

/**
 * Which of a schedule's occurrences to submit as jobs now, from where the last pass left off (its
 * cursor: the last occurrence submitted or given up). Pure: the caller writes the jobs and the new
 * cursor in one transaction, so a pass that fails or races another changes nothing.
 *
 * <p>Occurrences are submitted ahead: every one due within {@code lookaheadMs}, and always the next
 * one, so each fires on the millisecond like any job. An occurrence whose time has passed by no more
 * than {@code graceMs} is not a misfire: it is submitted with its own time and fires at once (a
 * failover or a slow pass costs seconds, and must not make a {@link Misfire#SKIP} schedule drop an
 * occurrence). Older ones, within the catch-up window, are the misfire policy's; older still, gone.
 *
 * <p>Example, {@code every: PT1S}, cursor 10:00:00, now 10:05:00, grace 60 s, window 1 h,
 * lookahead 30 s: 10:00:01 … 10:03:59 are missed (FIRE_ONCE: one job, occurrence 10:03:59, firing
 * now; FIRE_ALL: 239 jobs firing now; SKIP: none); 10:04:00 … 10:05:30 are submitted at their own
 * times (the 61 up to 10:05:00 fire at once); the new cursor is 10:05:30.
 */
public final class MaterializationPlanner {
    /** How many missed occurrences {@link Misfire#FIRE_ALL} submits at most: the newest. */
    public static final int MAX_FIRE_ALL = 1_000;
    /** How many on-time occurrences one pass submits at most for one schedule; the next pass goes on. */
    public static final int MAX_PER_PASS = 2_000;

    private final long lookaheadMs;
    private final long graceMs;

    public MaterializationPlanner(long lookaheadMs, long graceMs) {
        if (lookaheadMs < 0 || graceMs < 0) {
            throw new IllegalArgumentException("lookaheadMs and graceMs must be >= 0");
        }
        this.lookaheadMs = lookaheadMs;
        this.graceMs = graceMs;
    }

    /** One job to submit: the occurrence it stands for (its bizKey) and when it fires. */
    public record Planned(long occurrenceMs, long fireAtMs) {}

    /**
     * @param cursorMs where the last pass left off; no occurrence at or before it is planned
     * @param nextCheckMs when a pass should look at the schedule again (null: never, the series ended)
     */
    public record Plan(List<Planned> jobs, long cursorMs, Long nextCheckMs) {}

    public Plan plan(Series series, long cursorMs, long nowMs, Misfire misfire, long catchUpWindowMs) {
        List<Planned> jobs = new ArrayList<>();
        long lateSince = nowMs - graceMs; // before this, an occurrence missed its time
        long windowStart = nowMs - catchUpWindowMs; // before this, a miss is not caught up at all
        // misses older than both are gone: jumped over, never walked (an outage of days)
        long cursor = Math.max(cursorMs, Math.min(windowStart, lateSince) - 1);
        OptionalLong next = series.firstAfter(cursor);
        if (next.isPresent() && next.getAsLong() < lateSince) {
            int wanted =
                    switch (misfire) {
                        case SKIP -> 0;
                        case FIRE_ONCE -> 1;
                        case FIRE_ALL -> MAX_FIRE_ALL;
                    };
            for (long occurrence : newestBefore(series, cursor, lateSince, wanted)) {
                jobs.add(new Planned(occurrence, nowMs));
            }
            cursor = lateSince - 1; // every miss is decided: caught up or given up
            next = series.firstAfter(cursor);
        }
        long horizon = nowMs + lookaheadMs;
        while (next.isPresent()
                && (next.getAsLong() <= horizon || cursor <= nowMs) // or the next one is not submitted yet
                && jobs.size() < MAX_PER_PASS) {
            jobs.add(new Planned(next.getAsLong(), next.getAsLong()));
            cursor = next.getAsLong();
            next = series.firstAfter(cursor);
        }
        Long nextCheck = next.isPresent() ? Math.max(nowMs, next.getAsLong() - lookaheadMs) : null;
        return new Plan(jobs, cursor, nextCheck);
    }

    /**
     * Up to {@code wanted} of the newest occurrences in ({@code from}, {@code before}), oldest first.
     * Found by looking back over spans that double (1 s, 2 s, 4 s, …), so that a long outage costs
     * about twice the occurrences kept, not one step per occurrence missed.
     */
    static List<Long> newestBefore(Series series, long from, long before, int wanted) {
        if (wanted == 0) {
            return List.of();
        }
        for (long span = 1_000; ; span = span > Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 2 : span * 2) {
            long start = before - from <= span ? from : before - span;
            Deque<Long> found = new ArrayDeque<>();
            OptionalLong t = series.firstAfter(start);
            while (t.isPresent() && t.getAsLong() < before) {
                found.addLast(t.getAsLong());
                if (found.size() > wanted) {
                    found.removeFirst();
                }
                t = series.firstAfter(t.getAsLong());
            }
            if (found.size() >= wanted || start == from) {
                return new ArrayList<>(found);
            }
        }
    }
}
