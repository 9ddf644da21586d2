package dev.hourglass.node.api;

import dev.hourglass.node.core.job.TraceContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Reads the W3C trace context of a submit from its HTTP headers or Dubbo attachments with
 * OpenTelemetry's propagator, which checks it as the W3C recommendation says: a {@code traceparent}
 * that is malformed, of version {@code ff} or has an all-zero trace or span id is ignored (the
 * submit goes on, outside any trace; a tracing header is never a reason to refuse a job), and a
 * {@code tracestate} keeps its well-formed entries, at most 32. What is kept is written back by the
 * same propagator, so a job holds the canonical form.
 */
public final class TraceHeaders {
    public static final String TRACEPARENT = TraceContext.TRACEPARENT;
    public static final String TRACESTATE = TraceContext.TRACESTATE;

    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();

    private TraceHeaders() {}

    /** The context carried by {@code header} (a header or attachment by name; null when absent). */
    public static TraceContext read(UnaryOperator<String> header) {
        if (header.apply(TRACEPARENT) == null) {
            return TraceContext.NONE; // most submits: nothing to parse
        }
        Context extracted = W3C.extract(Context.root(), header, Getter.INSTANCE);
        if (!Span.fromContext(extracted).getSpanContext().isValid()) {
            return TraceContext.NONE;
        }
        Map<String, String> written = new HashMap<>(2);
        W3C.inject(extracted, written, Map::put);
        return new TraceContext(written.get(TRACEPARENT), written.get(TRACESTATE));
    }

    private enum Getter implements TextMapGetter<UnaryOperator<String>> {
        INSTANCE;

        @Override
        public Iterable<String> keys(UnaryOperator<String> carrier) {
            return List.of(TRACEPARENT, TRACESTATE);
        }

        @Override
        public String get(UnaryOperator<String> carrier, String key) {
            return carrier == null ? null : carrier.apply(key);
        }
    }
}
