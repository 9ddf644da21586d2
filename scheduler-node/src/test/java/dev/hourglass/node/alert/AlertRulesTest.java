package dev.hourglass.node.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.core.alert.AlertKind;
import dev.hourglass.node.core.alert.AlertRules;
import dev.hourglass.node.core.service.AlertPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

class AlertRulesTest {

    @Test
    void theSpecPolicyWatchesFailedJobsOnlyAndHoldsAtTheThreshold() {
        AlertPolicy policy = new AlertPolicy(10, 300, null);
        List<AlertRules.Check> below = AlertRules.check(policy, new AlertRules.Observation(9, 50, 999_999));
        assertThat(below).extracting(AlertRules.Check::kind).containsExactly(AlertKind.FAILED_JOBS);
        assertThat(below.get(0).holds()).isFalse();
        AlertRules.Check at =
                AlertRules.check(policy, new AlertRules.Observation(10, 0, 0)).get(0);
        assertThat(at.holds()).isTrue();
        assertThat(at.observed()).isEqualTo(10);
        assertThat(at.threshold()).isEqualTo(10);
        assertThat(at.message()).contains("10 jobs FAILED in the last 300 s");
    }

    @Test
    void streakAndOverdueAreJudgedWhenThePolicyNamesThem() {
        AlertPolicy policy = new AlertPolicy(10, 300, 5, 60, null);
        List<AlertRules.Check> checks = AlertRules.check(policy, new AlertRules.Observation(0, 5, 60_001));
        assertThat(checks)
                .extracting(AlertRules.Check::kind)
                .containsExactly(AlertKind.FAILED_JOBS, AlertKind.CONSECUTIVE_FAILURES, AlertKind.OVERDUE);
        assertThat(checks).extracting(AlertRules.Check::holds).containsExactly(false, true, true);
        assertThat(AlertRules.check(policy, new AlertRules.Observation(0, 4, 60_000)))
                .extracting(AlertRules.Check::holds)
                .as("one short of the streak; overdue by exactly the threshold is not more than it")
                .containsExactly(false, false, false);
    }

    @Test
    void notificationRetriesBackOffFromFiveSecondsToTenMinutes() {
        assertThat(AlertRules.retryDelayMs(1)).isEqualTo(5_000);
        assertThat(AlertRules.retryDelayMs(2)).isEqualTo(10_000);
        assertThat(AlertRules.retryDelayMs(8)).isEqualTo(600_000);
        assertThat(AlertRules.retryDelayMs(100)).isEqualTo(600_000);
    }
}
