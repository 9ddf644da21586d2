package dev.hourglass.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.ReservationStore.HeldJob;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PullMetricsTest {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final PullMetrics metrics = new PullMetrics(registry, new ServiceLabels(2), Set::of);

    /** A reserved job of {@code app/service}, first due at {@code fireAt} and due again at {@code dueAt}. */
    private static HeldJob reserved(String app, String service, long fireAt, long dueAt) {
        Job job = Job.builder()
                .id(1)
                .app(app)
                .service(service)
                .state(JobState.RUNNING)
                .fireAt(fireAt)
                .dueAt(dueAt + 30_000) // in the database: the reservation's deadline
                .attributes(Map.of())
                .build();
        return new HeldJob(job, dueAt);
    }

    private Timer lateness(String app, String service) {
        return registry.find("hourglass.pull.handout.lateness")
                .tags("app", app, "service", service)
                .timer();
    }

    @Test
    void eachJobAnsweredCountsItsLatenessFromItsDueTimeNotItsFireTimeNorItsDeadline() {
        // a first attempt 4 ms late, and a retry (fired long ago, due again at 1,000) 2 ms late
        metrics.answered(List.of(reserved("shop", "report", 996, 996), reserved("shop", "report", 100, 998)), 0, 1_000);
        // a job due before its consumer asked: the wait for a consumer counts
        metrics.answered(List.of(reserved("shop", "report", 500, 500)), 0, 1_000);
        // a wait that ran out: no job, no lateness
        metrics.answered(List.of(), 20_000, 30_000);

        Timer report = lateness("shop", "report");
        assertThat(report.count()).isEqualTo(3);
        assertThat(report.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(4 + 2 + 500);
        assertThat(report.max(TimeUnit.MILLISECONDS)).isEqualTo(500);
        assertThat(metrics.latenessSummary()).containsEntry("count", 3.0);
        assertThat(metrics.latenessSummary().get("p50")).isEqualTo(4.0);
        assertThat(metrics.latenessSummary().get("max")).isBetween(500.0, 505.0);
        assertThat(registry.find("hourglass.pull.reserved").counter().count()).isEqualTo(3);
        assertThat(registry.find("hourglass.pull.reserve.wait").timer().count())
                .as("every answer, with jobs or without")
                .isEqualTo(3);
    }

    @Test
    void theServicesOverTheLabelCapShareOneSeries() {
        metrics.answered(List.of(reserved("a", "one", 0, 0)), 0, 1);
        metrics.answered(List.of(reserved("a", "two", 0, 0)), 0, 2);
        metrics.answered(List.of(reserved("a", "three", 0, 0), reserved("b", "four", 0, 0)), 0, 3);

        assertThat(lateness("a", "one").count()).isEqualTo(1);
        assertThat(lateness("a", "two").count()).isEqualTo(1);
        assertThat(lateness("a", "three")).isNull();
        assertThat(lateness("_other", "_other").count()).isEqualTo(2);
    }

    @Test
    void aJobAnsweredBeforeItsDueTimeCountsZeroNotANegativeLateness() {
        // the node never answers early (the pull tests check that); a clock read across threads
        // can still put the answer's time a millisecond before the due time read elsewhere
        metrics.answered(List.of(reserved("shop", "report", 1_000, 1_000)), 0, 999);

        assertThat(lateness("shop", "report").totalTime(TimeUnit.MILLISECONDS)).isZero();
        assertThat(metrics.latenessSummary()).containsEntry("max", 0.0);
    }
}
