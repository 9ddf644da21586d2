package dev.hourglass.node.core.schedule;

import java.time.LocalDateTime;

/**
 * A cron expression read as wall-clock times, with no zone: which local date-times match. Parsing
 * and matching are a library's ({@link dev.hourglass.node.core.port.CronSyntax}); what those local
 * times mean as instants, daylight saving included, is {@link CronRecurrence}'s.
 */
public interface CronCalendar {
    /** The first matching local date-time strictly after {@code after}, or null if there is none. */
    LocalDateTime nextAfter(LocalDateTime after);
}
