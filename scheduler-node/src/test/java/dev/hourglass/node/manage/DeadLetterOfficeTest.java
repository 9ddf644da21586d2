package dev.hourglass.node.manage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.FlowControl;
import dev.hourglass.node.core.service.Pause;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * When a job that ended gets no dead letter. The letters themselves (bizKey, attributes, written in
 * the transaction that ends the job) are checked end to end in FlowControlContract; these are the
 * refusals, which must answer before a letter is made: the office here has no job manager to make
 * one with, so a refusal that came too late would fail with a NullPointerException.
 */
class DeadLetterOfficeTest {
    static final long T0 = 1_800_000_000_000L;

    /** "orders" sends its FAILED jobs to "orders-dlq"; "orders-dlq" has a dead letter too. */
    final DeadLetterOffice office = new DeadLetterOffice(new Services(), null);

    @Test
    void routesOnlyTheEndsTheServiceNames() {
        assertThat(office.routes("shop/orders", JobState.FAILED)).isTrue();
        assertThat(office.routes("shop/orders", JobState.EXPIRED)).isFalse();
        assertThat(office.routes("shop/plain", JobState.FAILED)).isFalse();
    }

    @Test
    void aJobEndingInAnEndItsServiceDoesNotRouteGetsNoLetter() {
        assertThat(office.letterOf(ended("orders", "order-1", JobState.EXPIRED), T0))
                .isEmpty();
        assertThat(office.letterOf(ended("plain", "order-1", JobState.FAILED), T0))
                .isEmpty();
    }

    /**
     * Two PUTs that cross can each pass their check and make two services each other's dead letter
     * (docs/api.md refuses a chain); a letter that fails is then not sent on, or the two would pass
     * it back and forth for ever.
     */
    @Test
    void aDeadLetterThatFailsIsNotDeadLetteredAgainEvenWhereItsServiceRoutesFailures() {
        assertThat(office.routes("shop/orders-dlq", JobState.FAILED)).isTrue();
        assertThat(office.letterOf(ended("orders-dlq", "dlq:41:3", JobState.FAILED), T0))
                .isEmpty();
    }

    static Job ended(String service, String bizKey, JobState state) {
        return Job.builder()
                .id(42)
                .app("shop")
                .service(service)
                .bizKey(bizKey)
                .state(state)
                .fireAt(T0)
                .dueAt(T0)
                .attempts(3)
                .maxAttempts(3)
                .timeoutMs(30_000)
                .payload("{}")
                .attributes(Map.of())
                .lastError("HTTP 500")
                .build();
    }

    static final class Services implements ServiceLookup {
        @Override
        public Optional<ServiceDefinition> find(String app, String name) {
            FlowControl flow =
                    switch (name) {
                        case "orders" ->
                            new FlowControl(null, new FlowControl.DeadLetter("orders-dlq", Set.of(JobState.FAILED)));
                        case "orders-dlq" ->
                            new FlowControl(null, new FlowControl.DeadLetter("orders", Set.of(JobState.FAILED)));
                        default -> FlowControl.NONE;
                    };
            return Optional.of(new ServiceDefinition(
                    app,
                    name,
                    Protocol.HTTP,
                    null,
                    "http://127.0.0.1:9/",
                    null,
                    null,
                    3,
                    30_000,
                    Backoff.DEFAULT,
                    AckMode.CONSUMER,
                    100,
                    null,
                    null,
                    T0,
                    T0,
                    flow,
                    Pause.NEVER));
        }

        @Override
        public Set<String> pulledServiceKeys() {
            return Set.of();
        }

        @Override
        public Set<String> pausedServiceKeys() {
            return Set.of();
        }

        @Override
        public boolean refresh() {
            return false;
        }
    }
}
