package dev.hourglass.node.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.Iso8601;
import dev.hourglass.node.core.job.Execution;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.schedule.Schedule;
import dev.hourglass.node.core.service.FlowControl;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.schedule.ScheduleCommands;
import java.time.Duration;
import java.util.Map;

/** The API's JSON: one ObjectMapper, the wire shapes of docs/api.md, "HTTP API", and the time format. */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    static String time(long epochMs) {
        return Iso8601.format(epochMs);
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static ArrayNode array() {
        return MAPPER.createArrayNode();
    }

    static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            throw HourglassException.invalid(null, "a JSON body is required");
        }
        try {
            return MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw HourglassException.invalid(null, "malformed JSON: " + e.getOriginalMessage());
        }
    }

    static ObjectNode job(Job job) {
        ObjectNode n = object();
        n.put("id", Long.toString(job.id()));
        n.put("app", job.app());
        n.put("service", job.service());
        n.put("bizKey", job.bizKey());
        n.put("state", job.state().name());
        n.put("fireAt", time(job.fireAt()));
        n.put("createdAt", time(job.createdAt()));
        n.put("updatedAt", time(job.updatedAt()));
        n.put("attempts", job.attempts());
        n.put("maxAttempts", job.maxAttempts());
        n.put("timeoutMs", job.timeoutMs());
        if (job.expireAfterMs() == null) {
            n.putNull("expireAfterMs");
        } else {
            n.put("expireAfterMs", job.expireAfterMs());
        }
        n.putRawValue("payload", new RawValue(job.payload()));
        ObjectNode attributes = n.putObject("attributes");
        job.attributes().forEach(attributes::put);
        n.put("lastError", job.lastError());
        n.put("shard", job.shard());
        return n;
    }

    static ObjectNode schedule(ScheduleCommands.View view) {
        Schedule s = view.schedule();
        ObjectNode n = object();
        n.put("name", s.name());
        n.put("app", s.app());
        n.put("service", s.service());
        n.put("shard", s.shard());
        n.put("cron", s.cron());
        n.put(
                "every",
                s.everyMs() == null ? null : Duration.ofMillis(s.everyMs()).toString());
        n.put("timeZone", s.timeZone());
        n.putRawValue("payload", new RawValue(s.payload()));
        ObjectNode attributes = n.putObject("attributes");
        s.attributes().forEach(attributes::put);
        n.put("startAt", s.startAt() == null ? null : time(s.startAt()));
        n.put("endAt", s.endAt() == null ? null : time(s.endAt()));
        n.put("misfire", s.misfire().name());
        n.put("catchUpWindowMs", s.catchUpWindowMs());
        n.put("overlap", s.overlap().name());
        n.put("paused", s.paused());
        n.put("pausedAt", s.pausedAt() == null ? null : time(s.pausedAt()));
        n.put("maxAttempts", s.maxAttempts());
        n.put("timeoutMs", s.timeoutMs());
        n.put("expireAfterMs", s.expireAfterMs());
        n.put("generation", s.generation());
        ArrayNode next = n.putArray("nextFireTimes");
        view.nextFireTimes().forEach(t -> next.add(time(t)));
        if (view.lastOccurrenceAt() == null) {
            n.putNull("lastOccurrence");
        } else {
            ObjectNode last = n.putObject("lastOccurrence");
            last.put("time", time(view.lastOccurrenceAt()));
            last.put("jobId", view.lastJobId() == null ? null : Long.toString(view.lastJobId()));
            last.put(
                    "state",
                    view.lastJob() == null ? null : view.lastJob().state().name());
        }
        n.put("createdAt", time(s.createdAt()));
        n.put("updatedAt", time(s.updatedAt()));
        return n;
    }

    static ObjectNode execution(Execution e) {
        ObjectNode n = object();
        n.put("attempt", e.attempt());
        n.put("node", e.node());
        n.put("firedAt", time(e.firedAt()));
        n.put("finishedAt", e.finishedAt() == null ? null : time(e.finishedAt()));
        n.put("latenessMs", e.latenessMs());
        n.put("outcome", e.outcome() == null ? null : e.outcome().name());
        n.put("message", e.message());
        return n;
    }

    static ObjectNode service(ServiceDefinition s) {
        ObjectNode n = object();
        n.put("name", s.name());
        n.put("app", s.app());
        n.put("protocol", s.protocol().name());
        n.put("topic", s.topic());
        n.put("url", s.url());
        n.put("dubboGroup", s.dubboGroup());
        n.put("dubboVersion", s.dubboVersion());
        n.put("maxAttempts", s.maxAttempts());
        n.put("timeoutMs", s.timeoutMs());
        ObjectNode backoff = n.putObject("backoff");
        backoff.put("initialMs", s.backoff().initialMs());
        backoff.put("multiplier", s.backoff().multiplier());
        backoff.put("maxMs", s.backoff().maxMs());
        n.put("ackMode", s.ackMode().name());
        n.put("maxInFlight", s.maxInFlight());
        n.put("signingSecret", s.signingSecret());
        if (s.alert() == null) {
            n.putNull("alert");
        } else {
            ObjectNode alert = n.putObject("alert");
            alert.put("failures", s.alert().failures());
            alert.put("windowSeconds", s.alert().windowSeconds());
            alert.put("consecutiveFailures", s.alert().consecutiveFailures());
            alert.put("overdueSeconds", s.alert().overdueSeconds());
            alert.put("webhook", s.alert().webhook());
        }
        FlowControl flow = s.flow();
        if (flow.rateLimit() == null) {
            n.putNull("rateLimit");
        } else {
            ObjectNode rate = n.putObject("rateLimit");
            rate.put("perSecond", flow.rateLimit().perSecond());
            rate.put("burst", flow.rateLimit().burst());
        }
        n.put("deadLetter", flow.deadLetter() == null ? null : flow.deadLetter().service());
        if (flow.deadLetter() == null) {
            n.putNull("deadLetterOn");
        } else {
            ArrayNode on = n.putArray("deadLetterOn");
            flow.deadLetter().on().stream().map(Enum::name).sorted().forEach(on::add);
        }
        n.put("paused", s.paused());
        n.put("pausedAt", s.pause().pausedAt() == null ? null : time(s.pause().pausedAt()));
        n.put("pausedBy", s.pause().pausedBy());
        n.put("resumedAt", s.pause().resumedAt() == null ? null : time(s.pause().resumedAt()));
        n.put("createdAt", time(s.createdAt()));
        n.put("updatedAt", time(s.updatedAt()));
        return n;
    }

    static ObjectNode error(String code, String message, String field) {
        ObjectNode n = object();
        ObjectNode e = n.putObject("error");
        e.put("code", code);
        e.put("message", message);
        if (field != null) {
            e.put("field", field);
        }
        return n;
    }

    static ObjectNode items(Iterable<? extends JsonNode> items) {
        ObjectNode n = object();
        ArrayNode a = n.putArray("items");
        items.forEach(a::add);
        return n;
    }

    static ObjectNode map(Map<String, ?> values) {
        return MAPPER.valueToTree(values);
    }
}
