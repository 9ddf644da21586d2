package dev.hourglass.node.core.port;

import dev.hourglass.node.core.schedule.CronCalendar;

/** Reads a cron expression of six fields (seconds first), Spring's syntax: a library's job, not ours. */
public interface CronSyntax {
    /**
     * The expression's calendar.
     *
     * @throws IllegalArgumentException with the library's reason, for an expression it cannot read
     */
    CronCalendar parse(String sixFields);
}
