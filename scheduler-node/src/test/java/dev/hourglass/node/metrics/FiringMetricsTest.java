package dev.hourglass.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.NextStep;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FiringMetricsTest {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final FiringMetrics metrics = new FiringMetrics(registry, new ServiceLabels(2));

    private static Job job(String app, String service, long fireAt) {
        return Job.builder()
                .id(1)
                .app(app)
                .service(service)
                .state(JobState.RUNNING)
                .fireAt(fireAt)
                .dueAt(fireAt)
                .attributes(Map.of())
                .build();
    }

    private static AttemptResult ended(String serviceKey, AttemptOutcome outcome) {
        return new AttemptResult(1, 1, outcome, null, 0L, 0, NextStep.finished(), 0, serviceKey);
    }

    private Timer lateness(String app, String service) {
        return registry.find("hourglass.fire.lateness")
                .tags("app", app, "service", service)
                .timer();
    }

    private double attempts(String app, String service, AttemptOutcome outcome) {
        Counter c = registry.find("hourglass.attempts")
                .tags("app", app, "service", service, "outcome", outcome.name())
                .counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void latenessIsRecordedInSecondsPerServiceAndTheServicesOverTheCapShareOther() {
        metrics.fired(job("shop", "close", 1_000), 1_250); // 250 ms late
        metrics.fired(job("shop", "remind", 1_000), 1_000);
        metrics.fired(job("bank", "settle", 1_000), 4_000); // the third service: over the cap of 2
        metrics.fired(job("bank", "audit", 1_000), 1_010); // the fourth: shares "other"
        metrics.fired(job("shop", "close", 1_000), 1_050);

        assertThat(lateness("shop", "close").count()).isEqualTo(2);
        assertThat(lateness("shop", "close").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(300);
        assertThat(lateness("shop", "close").max(TimeUnit.SECONDS)).isEqualTo(0.25);
        assertThat(lateness("shop", "remind").count()).isEqualTo(1);
        assertThat(lateness("bank", "settle")).isNull();
        assertThat(lateness("_other", "_other").count()).isEqualTo(2);
        assertThat(lateness("_other", "_other").totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(3_010);
        assertThat(registry.find("hourglass.fire.lateness").timers()).hasSize(3);

        // the histogram's buckets, which Prometheus exports as le="0.25" and so on
        assertThat(FiringMetrics.LATENESS_BUCKETS).hasSize(16);
        // /api/v1/stats in milliseconds, from a histogram of 2 significant digits
        assertThat(metrics.latenessSummary()).containsEntry("count", 5.0);
        assertThat(metrics.latenessSummary().get("max")).isBetween(3_000.0, 3_030.0);
    }

    @Test
    void attemptsAreCountedByServiceAndOutcomeAndInTotalForTheStats() {
        metrics.ended(ended("shop/close", AttemptOutcome.SUCCESS));
        metrics.ended(ended("shop/close", AttemptOutcome.SUCCESS));
        metrics.ended(ended("shop/close", AttemptOutcome.RETRY));
        metrics.ended(ended("shop/remind", AttemptOutcome.FAIL));
        metrics.ended(ended("bank/settle", AttemptOutcome.TIMEOUT)); // over the cap

        assertThat(attempts("shop", "close", AttemptOutcome.SUCCESS)).isEqualTo(2);
        assertThat(attempts("shop", "close", AttemptOutcome.RETRY)).isEqualTo(1);
        assertThat(attempts("shop", "remind", AttemptOutcome.FAIL)).isEqualTo(1);
        assertThat(attempts("_other", "_other", AttemptOutcome.TIMEOUT)).isEqualTo(1);
        assertThat(attempts("bank", "settle", AttemptOutcome.TIMEOUT)).isZero();
        assertThat(metrics.outcomeCounts())
                .containsEntry("SUCCESS", 2L)
                .containsEntry("RETRY", 1L)
                .containsEntry("FAIL", 1L)
                .containsEntry("TIMEOUT", 1L)
                .containsEntry("ERROR", 0L);
    }

    @Test
    void theCapCountsServicesNotMetersSoAServiceLabelledByItsLatenessKeepsItsLabelsOnItsAttempts() {
        metrics.fired(job("shop", "close", 0), 0);
        metrics.fired(job("shop", "remind", 0), 0);
        // two services hold the two places: the attempts of two others share "_other", and
        // shop/close, labelled by its lateness, is counted under its own labels (a cap per meter
        // would have given the attempts' two places to bank/settle and bank/audit)
        metrics.ended(ended("bank/settle", AttemptOutcome.SUCCESS));
        metrics.ended(ended("bank/audit", AttemptOutcome.SUCCESS));
        metrics.ended(ended("shop/close", AttemptOutcome.SUCCESS));
        assertThat(attempts("shop", "close", AttemptOutcome.SUCCESS)).isEqualTo(1);
        assertThat(attempts("bank", "settle", AttemptOutcome.SUCCESS)).isZero();
        assertThat(attempts("_other", "_other", AttemptOutcome.SUCCESS)).isEqualTo(2);
    }
}
