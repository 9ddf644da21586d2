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
 * times (the first 60 at once); the new cursor is 10:05:30.
 */
public final class MaterializationPlanner {
    /** How many missed occurrences {@link Misfire#FIRE_ALL} submits at most: the newest. */
    public static final int MAX_FIRE_ALL = 1_000;
    /** How many occurrences one pass submits at most for one schedule; the next pass goes on. */
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
        long cursor = cursorMs;
        long lateSince = nowMs - graceMs; // before this, an occurrence missed its time
        long windowStart = nowMs - catchUpWindowMs; // before this, it is not caught up at all
        if (cursor < windowStart - 1) {
            cursor = windowStart - 1; // an outage longer than the window: jump, do not walk it
        }
        Deque<Long> missed = new ArrayDeque<>();
        OptionalLong next = series.firstAfter(cursor);
        int walked = 0;
        while (next.isPresent() && next.getAsLong() < lateSince && walked < MAX_PER_PASS * 10) {
            missed.addLast(next.getAsLong());
            if (missed.size() > MAX_FIRE_ALL) {
                missed.removeFirst();
            }
            cursor = next.getAsLong();
            next = series.firstAfter(cursor);
            walked++;
        }
        if (!missed.isEmpty()) {
            switch (misfire) {
                case FIRE_ONCE -> jobs.add(new Planned(missed.getLast(), nowMs));
                case FIRE_ALL -> missed.forEach(occurrence -> jobs.add(new Planned(occurrence, nowMs)));
                case SKIP -> {}
            }
        }
        if (next.isPresent() && next.getAsLong() < lateSince) {
            // the walk stopped on its bound: the next pass goes on from here
            return new Plan(jobs, cursor, nowMs);
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
}
