package dev.hourglass.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code hourglass_oldest_overdue_seconds{app,service}} on each store: a paused service's due job
 * grows it; a service whose only job is due in an hour takes no label of its own and the shared
 * series shows 0; a service with no waiting job has no series (docs/operations.md, "Metrics").
 */
@RunsAlongside
class OverdueMetricsIT {
    NodeFixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    @Test
    void onMariaDb() throws Exception {
        f = new NodeFixture(OverdueMetricsIT::tune);
        check();
    }

    @Test
    void onTheStandaloneStore() throws Exception {
        f = NodeFixture.standalone(OverdueMetricsIT::tune);
        check();
    }

    /** No Dubbo; the backlog read every 300 ms instead of 10 s, so the test waits a second, not ten. */
    private static void tune(dev.hourglass.node.config.NodeConfig c) {
        c.dubbo.enabled = false;
        c.metrics.backlogEveryMs = 300;
    }

    private void check() throws Exception {
        String held = f.httpService("");
        String later = f.httpService("");
        String idle = f.httpService("");
        assertThat(f.app.post("/api/v1/services/" + held + "/pause", null).status())
                .isEqualTo(200);
        long submitted = System.currentTimeMillis();
        f.submit(held, 0, "\"bizKey\":\"held-1\"");
        f.submit(later, 3_600_000, "\"bizKey\":\"later-1\"");

        ApiClient anonymous = new ApiClient(f.node.baseUrl(), "");
        // read every 300 ms here: wait until the paused service's job has been overdue a second
        await().atMost(Duration.ofSeconds(20))
                .until(() -> overdue(anonymous.get("/metrics").text(), held) >= 1);
        String exported = anonymous.get("/metrics").text();
        double heldSeconds = overdue(exported, held);
        assertThat(heldSeconds)
                .as("at most the time since the submit")
                .isLessThanOrEqualTo((System.currentTimeMillis() - submitted) / 1000.0);
        // due in an hour and never fired: takes no label of its own, and the shared series is 0
        assertThat(overdue(exported, "shop", later)).isNegative();
        assertThat(overdue(exported, "_other", "_other")).isZero();
        assertThat(overdue(exported, "shop", idle))
                .as("nothing waits: no series")
                .isNegative();
    }

    private static double overdue(String exported, String service) {
        return overdue(exported, "shop", service);
    }

    /** The gauge's value for {@code app}'s {@code service}; -1 when it has no series. */
    private static double overdue(String exported, String app, String service) {
        Matcher m = Pattern.compile("(?m)^hourglass_oldest_overdue_seconds\\{(?=[^}]*app=\"" + Pattern.quote(app)
                        + "\")(?=[^}]*service=\"" + Pattern.quote(service) + "\")[^}]*} (\\S+)$")
                .matcher(exported);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }
}
