package dev.hourglass.node.core.schedule;

import dev.hourglass.node.core.port.CronSyntax;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * A cron expression in a time zone, its local times mapped to instants by the rule cron users know
 * from cronie and Vixie cron:
 *
 * <ul>
 *   <li>A <b>fixed-time</b> expression (its hour field one number, e.g. {@code 0 30 2 * * *}) fires
 *       once a day at that wall-clock time whatever the clock does: a local time that does not exist
 *       (spring forward) fires at the first instant after the gap; one that occurs twice (fall back)
 *       fires at its first occurrence only.
 *   <li>Any other expression ({@code *}, a range, list or step in the hour field) follows real time:
 *       its local times inside a gap do not exist, so nothing piles up after it, and its local times
 *       in a repeated hour fire in both passes.
 * </ul>
 *
 * <p>Worked example, Europe/Berlin on 2026-03-29 (02:00 → 03:00) and 2026-10-25 (03:00 → 02:00):
 * {@code 0 30 2 * * *} fires on 29 March at 03:00 CEST (the instant the gap ends) and on 25 October
 * at 02:30 CEST only; {@code 0 30 * * * *} has no 02:30 on 29 March and two on 25 October (CEST,
 * then CET, an hour apart).
 *
 * <p>How: the calendar yields matching local times in order. Mapped to its <em>first</em> instant
 * (the earlier offset in an overlap, the gap's end for a fixed time in a gap) that sequence never
 * goes down; the <em>second</em> instants of a repeated hour form a second such sequence. The next
 * occurrence after t is the smaller of the first element greater than t in each, so neither needs
 * more than a walk from t's own local time (and, for the second, from the nearest overlap).
 */
public final class CronRecurrence implements Recurrence {
    private static final Pattern ONE_NUMBER = Pattern.compile("\\d+");
    /** Spring's macros, as the six fields they stand for (their hour fields say whether fixed). */
    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 0 1 1 *",
            "@annually", "0 0 0 1 1 *",
            "@monthly", "0 0 0 1 * *",
            "@weekly", "0 0 0 * * 0",
            "@daily", "0 0 0 * * *",
            "@midnight", "0 0 0 * * *",
            "@hourly", "0 0 * * * *");

    /** Matching local times {@link #firstPassAfter} looks at before it says there is none. */
    static final int MAX_WALK = 100_000;

    private final String expression;
    private final ZoneId zone;
    private final ZoneRules rules;
    private final CronCalendar calendar;
    private final boolean fixedTime;

    private CronRecurrence(String expression, ZoneId zone, CronCalendar calendar, boolean fixedTime) {
        this.expression = expression;
        this.zone = zone;
        this.rules = zone.getRules();
        this.calendar = calendar;
        this.fixedTime = fixedTime;
    }

    /**
     * Reads {@code expression}: six fields (seconds first), five (read as {@code "0 "} + the five),
     * or one of Spring's macros ({@code @daily}, …).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static CronRecurrence of(String expression, ZoneId zone, CronSyntax syntax) {
        String sixFields = sixFields(expression);
        CronCalendar calendar = syntax.parse(sixFields);
        boolean fixedTime = ONE_NUMBER.matcher(sixFields.split("\\s+")[2]).matches();
        return new CronRecurrence(expression.trim(), zone, calendar, fixedTime);
    }

    /** The expression as six fields, seconds first. */
    static String sixFields(String expression) {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException("a cron expression is required");
        }
        String trimmed = expression.trim();
        if (trimmed.startsWith("@")) {
            String fields = MACROS.get(trimmed.toLowerCase(Locale.ROOT));
            if (fields == null) {
                throw new IllegalArgumentException("unknown cron macro " + trimmed + "; known: " + MACROS.keySet());
            }
            return fields;
        }
        String[] fields = trimmed.split("\\s+");
        return switch (fields.length) {
            case 6 -> String.join(" ", fields);
            case 5 -> "0 " + String.join(" ", fields);
            default ->
                throw new IllegalArgumentException(
                        "a cron expression has 6 fields (seconds first) or 5, not " + fields.length);
        };
    }

    public String expression() {
        return expression;
    }

    public ZoneId zone() {
        return zone;
    }

    /** Whether the hour field is one number: see the class comment for what that changes. */
    public boolean isFixedTime() {
        return fixedTime;
    }

    @Override
    public OptionalLong firstAfter(long afterMs) {
        Instant after = Instant.ofEpochMilli(afterMs);
        Long first = firstPassAfter(after);
        if (first == null) {
            return OptionalLong.empty();
        }
        Long second = fixedTime ? null : secondPassBefore(after, first);
        return OptionalLong.of(second == null ? first : Math.min(first, second));
    }

    /**
     * The first "first instant" after {@code after}. Every local time before {@code after}'s own has
     * its first instant at or before {@code after}, so the walk starts there; it passes over local
     * times whose first instant is not later (only in the second pass of a repeated hour).
     */
    private Long firstPassAfter(Instant after) {
        long afterMs = after.toEpochMilli();
        LocalDateTime local = calendar.nextAfter(LocalDateTime.ofInstant(after, zone));
        // bounded: a repeated hour passes over at most 3,600 matches of a per-second expression;
        // an expression that matches only local times that never exist here would go on forever
        for (int walked = 0; local != null && walked < MAX_WALK; walked++) {
            Long instant = firstInstantOf(local);
            if (instant != null && instant > afterMs) {
                return instant;
            }
            local = calendar.nextAfter(local);
        }
        return null;
    }

    /** The instant a local time first stands for here, or null if it does not exist and is not fixed. */
    private Long firstInstantOf(LocalDateTime local) {
        List<ZoneOffset> offsets = rules.getValidOffsets(local);
        if (!offsets.isEmpty()) {
            // in an overlap, ZonedDateTime takes the earlier offset: the first pass
            return ZonedDateTime.ofLocal(local, zone, null).toInstant().toEpochMilli();
        }
        return fixedTime ? rules.getTransition(local).getInstant().toEpochMilli() : null;
    }

    /**
     * The first second-pass instant after {@code after} and before {@code bound}, or null: the local
     * times of each repeated hour whose second instant could lie in between, from the overlap in
     * which {@code after} may itself lie.
     */
    private Long secondPassBefore(Instant after, long bound) {
        ZoneOffsetTransition t = rules.previousTransition(after.plusMillis(1));
        if (t == null) {
            t = rules.nextTransition(after);
        }
        while (t != null && t.getInstant().toEpochMilli() < bound) {
            if (t.isOverlap()) {
                // the repeated local times [dateTimeAfter, dateTimeBefore), their second pass at offsetAfter
                LocalDateTime afterHere = LocalDateTime.ofInstant(after, t.getOffsetAfter());
                LocalDateTime from = afterHere.isBefore(t.getDateTimeAfter())
                        ? t.getDateTimeAfter().minusNanos(1)
                        : afterHere;
                LocalDateTime local = calendar.nextAfter(from);
                if (local != null && local.isBefore(t.getDateTimeBefore())) {
                    long second = local.toInstant(t.getOffsetAfter()).toEpochMilli();
                    return second < bound ? second : null;
                }
            }
            t = rules.nextTransition(t.getInstant());
        }
        return null;
    }

    @Override
    public String toString() {
        return "cron " + expression + " in " + zone;
    }
}
