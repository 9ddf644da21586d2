package dev.hourglass.node.firing;

import dev.hourglass.node.core.job.Job;
import org.slf4j.MDC;

/**
 * The MDC of a log line about one attempt — {@code jobId}, {@code app}, {@code service},
 * {@code attempt} (docs/operations.md, "Logs") — so a log search by job finds the engine's lines
 * whatever their wording. Set around the line, on the logging thread, and removed after it:
 * {@code try (var mdc = AttemptLogContext.of(job)) { LOG.warn(...); }}.
 */
final class AttemptLogContext implements AutoCloseable {
    private static final AttemptLogContext INSTANCE = new AttemptLogContext();

    private AttemptLogContext() {}

    static AttemptLogContext of(Job job) {
        MDC.put("jobId", Long.toString(job.id()));
        MDC.put("app", job.app());
        MDC.put("service", job.service());
        MDC.put("attempt", Integer.toString(job.attempts()));
        return INSTANCE;
    }

    @Override
    public void close() {
        MDC.remove("jobId");
        MDC.remove("app");
        MDC.remove("service");
        MDC.remove("attempt");
    }
}
