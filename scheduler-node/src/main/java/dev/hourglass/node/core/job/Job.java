package dev.hourglass.node.core.job;

import dev.hourglass.api.JobState;
import java.util.Map;

/**
 * A job as stored: live (DELAYED, RUNNING) or final. Times are epoch milliseconds.
 *
 * @param fireAt when the next (or last) attempt is/was due: the submitted fire time, or a retry's time
 * @param dueAt when the scheduler must next act: {@code fireAt} while DELAYED, the attempt's timeout
 *     deadline while RUNNING
 * @param expireAt absolute expiry (first fire time + expireAfterMs), or null
 * @param attempts attempts made so far; the current/last attempt's number
 * @param payload the payload's JSON text
 */
public record Job(
        long id,
        String app,
        String service,
        String bizKey,
        int shard,
        JobState state,
        long fireAt,
        long dueAt,
        Long expireAt,
        int attempts,
        int budgetBase,
        int maxAttempts,
        long timeoutMs,
        Long expireAfterMs,
        String payload,
        Map<String, String> attributes,
        String lastError,
        String ownerNode,
        int version,
        long createdAt,
        long updatedAt) {

    public AttemptBudget budget() {
        return new AttemptBudget(attempts, budgetBase, maxAttempts);
    }

    public String serviceKey() {
        return serviceKey(app, service);
    }

    public static String serviceKey(String app, String service) {
        return app + '/' + service;
    }
}
