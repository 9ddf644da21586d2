package dev.hourglass.node.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;

/** Writes JSON answers. */
final class Respond {
    private Respond() {}

    static void json(Context ctx, int status, JsonNode body) {
        try {
            ctx.status(status).contentType("application/json").result(Json.MAPPER.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static void ok(Context ctx, JsonNode body) {
        json(ctx, 200, body);
    }
}
