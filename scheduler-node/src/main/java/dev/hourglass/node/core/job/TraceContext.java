package dev.hourglass.node.core.job;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The W3C trace context (a {@code traceparent} and its optional {@code tracestate}) a job was
 * submitted in, kept as two of Hourglass's own attributes and sent with every delivery of the job,
 * so a tracing backend links the submit to the deliveries hours later (docs/api.md, "Trace
 * context"). The values are checked where they enter (the HTTP and Dubbo doors); here they are
 * carried as they are.
 */
public record TraceContext(String traceparent, String tracestate) {
    /** The W3C names: of the headers (HTTP, Kafka) and Dubbo attachments it comes in and goes out by. */
    public static final String TRACEPARENT = "traceparent";

    public static final String TRACESTATE = "tracestate";

    public static final String TRACEPARENT_ATTRIBUTE = Names.RESERVED_ATTRIBUTE_PREFIX + TRACEPARENT;
    public static final String TRACESTATE_ATTRIBUTE = Names.RESERVED_ATTRIBUTE_PREFIX + TRACESTATE;

    /** A submit outside any trace. */
    public static final TraceContext NONE = new TraceContext(null, null);

    public TraceContext {
        if (traceparent == null) {
            tracestate = null; // a tracestate alone belongs to no trace
        }
    }

    public boolean isPresent() {
        return traceparent != null;
    }

    /** The job's trace context, from its attributes; {@link #NONE} when it has none. */
    public static TraceContext of(Map<String, String> attributes) {
        if (attributes == null || attributes.isEmpty()) {
            return NONE;
        }
        String parent = attributes.get(TRACEPARENT_ATTRIBUTE);
        return parent == null ? NONE : new TraceContext(parent, attributes.get(TRACESTATE_ATTRIBUTE));
    }

    /**
     * What a delivery carries, by W3C name: none, a {@code traceparent}, or it and its {@code
     * tracestate}; every dispatcher sends exactly these.
     */
    public Map<String, String> headers() {
        Map<String, String> out = new LinkedHashMap<>();
        if (traceparent != null) {
            out.put(TRACEPARENT, traceparent);
            if (tracestate != null && !tracestate.isEmpty()) {
                out.put(TRACESTATE, tracestate);
            }
        }
        return out;
    }

    /** The attributes that hold it: the {@link #headers()}, each under Hourglass's own prefix. */
    public Map<String, String> attributes() {
        Map<String, String> out = new LinkedHashMap<>();
        headers().forEach((name, value) -> out.put(Names.RESERVED_ATTRIBUTE_PREFIX + name, value));
        return out;
    }
}
