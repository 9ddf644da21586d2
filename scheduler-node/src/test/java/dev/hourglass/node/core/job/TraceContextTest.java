package dev.hourglass.node.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** What every dispatcher sends of a job's trace context, and how it is kept in the job. */
class TraceContextTest {
    private static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void aDeliveryCarriesTheTraceparentAndItsTracestateUnderTheW3cNames() {
        TraceContext t = new TraceContext(PARENT, "congo=t61rcWkgMzE");
        assertThat(t.headers())
                .containsExactly(Map.entry("traceparent", PARENT), Map.entry("tracestate", "congo=t61rcWkgMzE"));
    }

    @Test
    void anEmptyOrMissingTracestateIsNotSent() {
        assertThat(new TraceContext(PARENT, "").headers()).containsExactly(Map.entry("traceparent", PARENT));
        assertThat(new TraceContext(PARENT, null).headers()).containsExactly(Map.entry("traceparent", PARENT));
    }

    @Test
    void aJobOutsideAnyTraceSendsNothing() {
        assertThat(TraceContext.NONE.headers()).isEmpty();
        assertThat(new TraceContext(null, "congo=t61rcWkgMzE").headers()).isEmpty();
        assertThat(TraceContext.of(Map.of("tenant", "x")).headers()).isEmpty();
    }

    @Test
    void theAttributesGiveBackTheSameContext() {
        TraceContext t = new TraceContext(PARENT, "congo=t61rcWkgMzE");
        assertThat(TraceContext.of(t.attributes())).isEqualTo(t);
        assertThat(t.attributes()).containsOnlyKeys("hourglass-traceparent", "hourglass-tracestate");
    }
}
