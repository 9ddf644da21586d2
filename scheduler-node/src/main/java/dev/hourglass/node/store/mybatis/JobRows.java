package dev.hourglass.node.store.mybatis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.Execution;
import dev.hourglass.node.core.job.Job;
import java.util.LinkedHashMap;
import java.util.Map;

/** Converts between the domain's {@link Job} and the rows MyBatis maps. */
final class JobRows {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, String>> STRING_MAP = new TypeReference<>() {};

    private JobRows() {}

    static JobRow toRow(Job job) {
        JobRow r = new JobRow();
        r.id = job.id();
        r.app = job.app();
        r.service = job.service();
        r.bizKey = job.bizKey();
        r.shard = job.shard();
        r.state = job.state().name();
        r.fireAt = job.fireAt();
        r.dueAt = job.dueAt();
        r.expireAt = job.expireAt();
        r.attempts = job.attempts();
        r.budgetBase = job.budgetBase();
        r.maxAttempts = job.maxAttempts();
        r.timeoutMs = job.timeoutMs();
        r.expireAfterMs = job.expireAfterMs();
        r.payload = job.payload();
        r.attributes = attributesToJson(job.attributes());
        r.lastError = job.lastError();
        r.ownerNode = job.ownerNode();
        r.version = job.version();
        r.createdAt = job.createdAt();
        r.updatedAt = job.updatedAt();
        return r;
    }

    static Job toJob(JobRow r) {
        return Job.builder()
                .id(r.id)
                .app(r.app)
                .service(r.service)
                .bizKey(r.bizKey)
                .shard(r.shard)
                .state(JobState.valueOf(r.state))
                .fireAt(r.fireAt)
                .dueAt(r.dueAt)
                .expireAt(r.expireAt)
                .attempts(r.attempts)
                .budgetBase(r.budgetBase)
                .maxAttempts(r.maxAttempts)
                .timeoutMs(r.timeoutMs)
                .expireAfterMs(r.expireAfterMs)
                .payload(r.payload)
                .attributes(attributesFromJson(r.attributes))
                .lastError(r.lastError)
                .ownerNode(r.ownerNode)
                .version(r.version)
                .createdAt(r.createdAt)
                .updatedAt(r.updatedAt)
                .build();
    }

    static Execution toExecution(ExecutionRow r) {
        return new Execution(
                r.jobId,
                r.attempt,
                r.node,
                r.fireAt,
                r.firedAt,
                r.finishedAt,
                r.outcome == null ? null : AttemptOutcome.valueOf(r.outcome),
                r.message);
    }

    static String attributesToJson(Map<String, String> attributes) {
        if (attributes == null || attributes.isEmpty()) {
            return null;
        }
        try {
            return JSON.writeValueAsString(attributes);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("attributes cannot be written as JSON", e);
        }
    }

    static Map<String, String> attributesFromJson(String json) {
        if (json == null || json.isEmpty()) {
            return Map.of();
        }
        try {
            return JSON.readValue(json, STRING_MAP);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored attributes are not a JSON object of strings", e);
        }
    }

    /** Cuts a message to the column's width. */
    static String clip(String message) {
        return message == null || message.length() <= 1000 ? message : message.substring(0, 1000) + "...";
    }
}
