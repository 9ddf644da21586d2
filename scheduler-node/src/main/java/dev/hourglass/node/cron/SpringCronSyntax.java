package dev.hourglass.node.cron;

import dev.hourglass.node.core.port.CronSyntax;
import dev.hourglass.node.core.schedule.CronCalendar;
import org.springframework.scheduling.support.CronExpression;

/**
 * Cron expressions read by Spring's {@link CronExpression}: the syntax the documentation promises
 * (day-of-week names or 0–7, {@code ?}, {@code L}, {@code W}, {@code #}). Matching is done on local
 * date-times, with no zone: what they are as instants is {@code CronRecurrence}'s. Thread-safe.
 */
public final class SpringCronSyntax implements CronSyntax {
    @Override
    public CronCalendar parse(String sixFields) {
        CronExpression expression = CronExpression.parse(sixFields); // IllegalArgumentException with the reason
        return expression::next;
    }
}
