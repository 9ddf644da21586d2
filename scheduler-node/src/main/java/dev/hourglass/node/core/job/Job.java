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

    /** A builder with nothing set: name every component a new job needs. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this job's components: change what differs, by name. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.id = id;
        b.app = app;
        b.service = service;
        b.bizKey = bizKey;
        b.shard = shard;
        b.state = state;
        b.fireAt = fireAt;
        b.dueAt = dueAt;
        b.expireAt = expireAt;
        b.attempts = attempts;
        b.budgetBase = budgetBase;
        b.maxAttempts = maxAttempts;
        b.timeoutMs = timeoutMs;
        b.expireAfterMs = expireAfterMs;
        b.payload = payload;
        b.attributes = attributes;
        b.lastError = lastError;
        b.ownerNode = ownerNode;
        b.version = version;
        b.createdAt = createdAt;
        b.updatedAt = updatedAt;
        return b;
    }

    /** Builds a {@link Job} by named components instead of 21 positional ones. Not thread-safe. */
    public static final class Builder {
        private long id;
        private String app;
        private String service;
        private String bizKey;
        private int shard;
        private JobState state;
        private long fireAt;
        private long dueAt;
        private Long expireAt;
        private int attempts;
        private int budgetBase;
        private int maxAttempts;
        private long timeoutMs;
        private Long expireAfterMs;
        private String payload;
        private Map<String, String> attributes;
        private String lastError;
        private String ownerNode;
        private int version;
        private long createdAt;
        private long updatedAt;

        private Builder() {}

        public Builder id(long id) {
            this.id = id;
            return this;
        }

        public Builder app(String app) {
            this.app = app;
            return this;
        }

        public Builder service(String service) {
            this.service = service;
            return this;
        }

        public Builder bizKey(String bizKey) {
            this.bizKey = bizKey;
            return this;
        }

        public Builder shard(int shard) {
            this.shard = shard;
            return this;
        }

        public Builder state(JobState state) {
            this.state = state;
            return this;
        }

        public Builder fireAt(long fireAt) {
            this.fireAt = fireAt;
            return this;
        }

        public Builder dueAt(long dueAt) {
            this.dueAt = dueAt;
            return this;
        }

        public Builder expireAt(Long expireAt) {
            this.expireAt = expireAt;
            return this;
        }

        public Builder attempts(int attempts) {
            this.attempts = attempts;
            return this;
        }

        public Builder budgetBase(int budgetBase) {
            this.budgetBase = budgetBase;
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder timeoutMs(long timeoutMs) {
            this.timeoutMs = timeoutMs;
            return this;
        }

        public Builder expireAfterMs(Long expireAfterMs) {
            this.expireAfterMs = expireAfterMs;
            return this;
        }

        public Builder payload(String payload) {
            this.payload = payload;
            return this;
        }

        public Builder attributes(Map<String, String> attributes) {
            this.attributes = attributes;
            return this;
        }

        public Builder lastError(String lastError) {
            this.lastError = lastError;
            return this;
        }

        public Builder ownerNode(String ownerNode) {
            this.ownerNode = ownerNode;
            return this;
        }

        public Builder version(int version) {
            this.version = version;
            return this;
        }

        public Builder createdAt(long createdAt) {
            this.createdAt = createdAt;
            return this;
        }

        public Builder updatedAt(long updatedAt) {
            this.updatedAt = updatedAt;
            return this;
        }

        public Job build() {
            return new Job(
                    id,
                    app,
                    service,
                    bizKey,
                    shard,
                    state,
                    fireAt,
                    dueAt,
                    expireAt,
                    attempts,
                    budgetBase,
                    maxAttempts,
                    timeoutMs,
                    expireAfterMs,
                    payload,
                    attributes,
                    lastError,
                    ownerNode,
                    version,
                    createdAt,
                    updatedAt);
        }
    }
}
