package dev.hourglass.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.core.job.TraceContext;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TraceHeadersTest {
    static final String PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private static TraceContext read(String traceparent, String tracestate) {
        Map<String, String> headers = new HashMap<>();
        if (traceparent != null) {
            headers.put("traceparent", traceparent);
        }
        if (tracestate != null) {
            headers.put("tracestate", tracestate);
        }
        return TraceHeaders.read(headers::get);
    }

    @Test
    void aValidContextIsKeptAsItCame() {
        TraceContext t = read(PARENT, "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
        assertThat(t.traceparent()).isEqualTo(PARENT);
        assertThat(t.tracestate()).isEqualTo("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
        assertThat(t.attributes())
                .containsExactly(
                        Map.entry("hourglass-traceparent", PARENT),
                        Map.entry("hourglass-tracestate", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"));
        assertThat(TraceContext.of(t.attributes())).isEqualTo(t);
    }

    @Test
    void anUnsampledContextIsKeptToo() {
        String unsampled = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";
        assertThat(read(unsampled, null)).isEqualTo(new TraceContext(unsampled, null));
    }

    @Test
    void aMalformedTraceparentIsIgnoredNotRefused() {
        for (String bad : new String[] {
            "00-00000000000000000000000000000000-b7ad6b7169203331-01", // all-zero trace id
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", // all-zero span id
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01", // upper case
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", // version ff
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333-01", // short span id
            "not a trace",
            ""
        }) {
            assertThat(read(bad, "congo=t61rcWkgMzE")).as(bad).isEqualTo(TraceContext.NONE);
        }
    }

    @Test
    void aTracestateAloneBelongsToNoTrace() {
        assertThat(read(null, "congo=t61rcWkgMzE")).isEqualTo(TraceContext.NONE);
        assertThat(TraceContext.NONE.attributes()).isEmpty();
        assertThat(TraceContext.of(Map.of("tenant", "eu"))).isEqualTo(TraceContext.NONE);
    }

    @Test
    void aMalformedTracestateIsDroppedAndTheTraceparentKept() {
        TraceContext t = read(PARENT, "this is not=a tracestate,,=");
        assertThat(t.traceparent()).isEqualTo(PARENT);
        assertThat(t.tracestate()).isNull();
        assertThat(t.attributes()).containsOnlyKeys("hourglass-traceparent");
    }
}
