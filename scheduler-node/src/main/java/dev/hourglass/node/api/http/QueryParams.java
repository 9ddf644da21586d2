package dev.hourglass.node.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hourglass.api.HourglassException;
import io.javalin.http.Context;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Set;

/** Query parameters of the list routes, checked like body fields (same errors, same time forms). */
final class QueryParams {
    private QueryParams() {}

    /** A whole number, or null when the parameter is absent. */
    static Integer integer(Context ctx, String name) {
        String v = ctx.queryParam(name);
        if (v == null) {
            return null;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw HourglassException.invalid(name, name + " must be a whole number");
        }
    }

    static Long time(Context ctx, String name) {
        String v = ctx.queryParam(name);
        if (v == null) {
            return null;
        }
        JsonNode node = v.matches("-?\\d+")
                ? Json.MAPPER.getNodeFactory().numberNode(new BigInteger(v)) // one beyond a long: 400
                : Json.MAPPER.getNodeFactory().textNode(v);
        ObjectNode holder = Json.object();
        holder.set(name, node);
        Instant t = JsonFields.of(holder, Set.of(name)).time(name);
        return t.toEpochMilli();
    }

    /** A cursor this API gave: {@code prefix} (may be empty) then a positive long; else 400. */
    static String cursor(Context ctx, String prefix) {
        String v = ctx.queryParam("cursor");
        if (v == null) {
            return null;
        }
        if (!v.startsWith(prefix) || !v.substring(prefix.length()).matches("\\d{1,19}")) {
            throw HourglassException.invalid("cursor", "cursor is not one this API gave");
        }
        try {
            Long.parseLong(v.substring(prefix.length()));
        } catch (NumberFormatException beyondALong) {
            throw HourglassException.invalid("cursor", "cursor is not one this API gave");
        }
        return v;
    }

    /** A job search's cursor: {@code L} or {@code F}, then an id, or a fire time, a dot and an id. */
    static String jobCursor(Context ctx) {
        String v = ctx.queryParam("cursor");
        if (v == null) {
            return null;
        }
        if (!v.matches("[LF]\\d{1,19}(\\.\\d{1,19})?")) {
            throw HourglassException.invalid("cursor", "cursor is not one this API gave");
        }
        try {
            for (String part : v.substring(1).split("\\.")) {
                Long.parseLong(part);
            }
        } catch (NumberFormatException beyondALong) {
            throw HourglassException.invalid("cursor", "cursor is not one this API gave");
        }
        return v;
    }
}
