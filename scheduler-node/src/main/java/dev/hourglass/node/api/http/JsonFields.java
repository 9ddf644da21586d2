package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.manage.JobInputs;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads typed fields of a request object; a field of the wrong type is a 400 naming the field.
 * Unknown fields are refused too: a typo ({@code delay} for {@code delayMs}) must not silently
 * schedule a job at another time.
 */
final class JsonFields {
    private final JsonNode node;
    private final String prefix;

    private JsonFields(JsonNode node, String prefix) {
        this.node = node;
        this.prefix = prefix;
    }

    static JsonFields of(JsonNode node, Set<String> allowed) {
        return of(node, allowed, "");
    }

    static JsonFields of(JsonNode node, Set<String> allowed, String prefix) {
        if (node == null || !node.isObject()) {
            throw HourglassException.invalid(prefix.isEmpty() ? null : strip(prefix), "a JSON object is required");
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!allowed.contains(name)) {
                throw HourglassException.invalid(prefix + name, "unknown field " + prefix + name);
            }
        }
        return new JsonFields(node, prefix);
    }

    private static String strip(String prefix) {
        return prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix;
    }

    private JsonNode get(String name) {
        JsonNode v = node.get(name);
        return v == null || v.isNull() ? null : v;
    }

    boolean has(String name) {
        return node.has(name);
    }

    JsonNode raw(String name) {
        return node.get(name);
    }

    String string(String name) {
        JsonNode v = get(name);
        if (v == null) {
            return null;
        }
        if (!v.isTextual()) {
            throw HourglassException.invalid(prefix + name, prefix + name + " must be a string");
        }
        return v.asText();
    }

    Long integer(String name) {
        JsonNode v = get(name);
        if (v == null) {
            return null;
        }
        if (!v.isIntegralNumber()) {
            throw HourglassException.invalid(prefix + name, prefix + name + " must be a whole number");
        }
        if (!v.canConvertToLong()) { // e.g. 99999999999999999999: asLong() would wrap it
            throw HourglassException.invalid(prefix + name, prefix + name + " is out of range");
        }
        return v.asLong();
    }

    Integer int32(String name) {
        Long v = integer(name);
        if (v == null) {
            return null;
        }
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw HourglassException.invalid(prefix + name, prefix + name + " is out of range");
        }
        return v.intValue();
    }

    Boolean bool(String name) {
        JsonNode v = get(name);
        if (v == null) {
            return null;
        }
        if (!v.isBoolean()) {
            throw HourglassException.invalid(prefix + name, prefix + name + " must be true or false");
        }
        return v.asBoolean();
    }

    /** A JSON array of strings; null when absent. */
    List<String> stringList(String name) {
        JsonNode v = get(name);
        if (v == null) {
            return null;
        }
        if (!v.isArray()) {
            throw HourglassException.invalid(prefix + name, prefix + name + " must be a list of strings");
        }
        List<String> out = new ArrayList<>(v.size());
        for (JsonNode item : v) {
            if (!item.isTextual()) {
                throw HourglassException.invalid(prefix + name, prefix + name + " must be a list of strings");
            }
            out.add(item.asText());
        }
        return out;
    }

    Double decimal(String name) {
        JsonNode v = get(name);
        if (v == null) {
            return null;
        }
        if (!v.isNumber()) {
            throw HourglassException.invalid(prefix + name, prefix + name + " must be a number");
        }
        return v.asDouble();
    }

    /**
     * Epoch milliseconds (number) or ISO-8601 with offset (string); in either form a time that epoch
     * milliseconds cannot hold (about ±292 million years) is out of range.
     */
    Instant time(String name) {
        JsonNode v = get(name);
        if (v == null) {
            return null;
        }
        if (v.isIntegralNumber()) {
            if (!v.canConvertToLong()) {
                throw HourglassException.invalid(prefix + name, prefix + name + " is out of range");
            }
            return Instant.ofEpochMilli(v.asLong());
        }
        if (v.isTextual()) {
            try {
                Instant t = OffsetDateTime.parse(v.asText()).toInstant();
                JobInputs.epochMillis(prefix + name, t);
                return t;
            } catch (DateTimeParseException e) {
                throw HourglassException.invalid(
                        prefix + name, prefix + name + " must be ISO-8601 with an offset, e.g. 2026-11-21T15:30:00Z");
            }
        }
        throw HourglassException.invalid(
                prefix + name, prefix + name + " must be epoch milliseconds or an ISO-8601 string");
    }

    Map<String, String> stringMap(String name) {
        JsonNode v = get(name);
        if (v == null) {
            return null;
        }
        if (!v.isObject()) {
            throw HourglassException.invalid(prefix + name, prefix + name + " must be an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isTextual()) {
                throw HourglassException.invalid(prefix + name, prefix + name + "." + e.getKey() + " must be a string");
            }
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    JsonFields object(String name, Set<String> allowed) {
        JsonNode v = get(name);
        return v == null ? null : of(v, allowed, prefix + name + ".");
    }
}
