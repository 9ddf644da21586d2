package dev.hourglass.node.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node stopped the way a crash stops it, while jobs are RUNNING and DELAYED, then started again
 * on the same database: nothing is lost, and the RUNNING ones are delivered again after their
 * timeout with the next attempt number.
 */
@RunsAlongside
class RestartIT {
    NodeFixture f;

    @BeforeEach
    void start() throws Exception {
        // a graceful stop waits for deliveries under way up to this grace: the test's 500 ms
        // deliveries must not depend on a 2 s grace holding on a machine that stalls a second
        f = new NodeFixture(c -> {
            c.engine.shutdownGraceMs = 10_000;
            c.dubbo.enabled = false; // HTTP only
        });
    }

    @AfterEach
    void stop() {
        f.close();
    }

    @Test
    void aCrashMidFlightLosesNothingAndRedeliversTheRunningJobs() {
        // a timeout the test's 40 submits and 20 reads fit in before the crash, on a loaded machine
        // too: the class runs beside other test JVMs on two cores (README, "Tests"), where its
        // JVM may get a tenth of a core for seconds. It costs no time: the restarted node ends the
        // attempts its former self left at once (TimeoutSweep's orphans), not at their timeout
        String service = f.httpService("\"timeoutMs\":30000,\"backoff\":{\"initialMs\":100}");
        // attempt 1 hangs until long after the crash: those jobs are RUNNING when the node dies
        f.receiver.respond(r -> r.attempt() == 1 ? new Reply(200, "", Map.of(), 40_000) : Reply.ok());
        long startedAt = System.currentTimeMillis();
        List<String> running = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            running.add(f.submit(service, 0, "").get("id").asText());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> running.stream()
                .allMatch(id -> f.receiver.receivedFor(id).size() == 1));
        // due after the crash: the 40 requests before it take about as long as the 20 submits and
        // deliveries just did, on this machine as loaded as it is now; twice that plus 2 s (a fixed
        // 15 s lead, sized for a tenth of a core, was idle time on every other run)
        long delayMs = Math.min(15_000, 2_000 + 2 * (System.currentTimeMillis() - startedAt));
        List<String> delayed = new ArrayList<>();
        long firstDelayedAt = Long.MAX_VALUE;
        for (int i = 0; i < 20; i++) {
            JsonNode job = f.submit(service, delayMs, "");
            delayed.add(job.get("id").asText());
            firstDelayedAt = Math.min(firstDelayedAt, NodeFixture.epochMs(job.get("fireAt")));
        }
        assertThat(running).allMatch(id -> f.state(id).equals("RUNNING"));

        f.node.halt();
        // the premise: the delayed jobs were still waiting when the node died, not yet claimed (a
        // job is claimed engine.claimLeadMs before its fire time; the fixture's is the default)
        assertThat(System.currentTimeMillis())
                .as("the crash came before the delayed jobs were claimed (delay %d ms)", delayMs)
                .isLessThan(firstDelayedAt - new NodeConfig().engine.claimLeadMs);
        f.receiver.respond(r -> Reply.ok());
        f.startNode();

        await().atMost(Duration.ofSeconds(60))
                .until(() -> running.stream().allMatch(id -> f.state(id).equals("FINISHED"))
                        && delayed.stream().allMatch(id -> f.state(id).equals("FINISHED")));
        for (String id : running) {
            List<Received> got = f.receiver.receivedFor(id);
            assertThat(got)
                    .extracting(Received::attempt)
                    .as("re-delivered with a higher attempt")
                    .contains(1, 2);
            JsonNode executions = f.executions(id);
            assertThat(executions.get(0).get("outcome").asText()).isEqualTo("TIMEOUT");
            assertThat(executions.get(executions.size() - 1).get("outcome").asText())
                    .isEqualTo("SUCCESS");
        }
        for (String id : delayed) {
            List<Received> got = f.receiver.receivedFor(id);
            assertThat(got).as("a DELAYED job is delivered once").hasSize(1);
            assertThat(got.get(0).at())
                    .isGreaterThanOrEqualTo(NodeFixture.epochMs(f.job(id).get("fireAt")));
        }
    }

    @Test
    void aJobThatCouldNotFireBeforeItsExpiryExpiresInsteadOfFiring() {
        String service = f.httpService("");
        // due 5 s ahead: the node is halted before, even on a machine that stalls seconds (the
        // class runs beside other test JVMs: README, "Tests"). The retry by hand
        // below gives the job a new expiry, expireAfterMs from its new fire time (now), so the
        // node must claim it within that or it expires again. With 200 ms the job was once not
        // FINISHED 5 s after the retry in CI (two test JVMs on two cores); a job that expired
        // again now says so below instead of timing out
        var submitted = f.submit(service, 5_000, "\"expireAfterMs\":8000");
        String expiring = submitted.get("id").asText();
        long expireAt = NodeFixture.epochMs(submitted.get("fireAt")) + 8_000;
        String patient = f.submit(service, 5_000, "").get("id").asText();
        f.node.halt(); // down before they are due, and until after the first one's expiry
        await().atMost(Duration.ofSeconds(30)).until(() -> System.currentTimeMillis() > expireAt + 200);
        f.startNode();
        await().atMost(Duration.ofSeconds(30)).until(() -> "FINISHED".equals(f.state(patient)));
        await().atMost(Duration.ofSeconds(30)).until(() -> "EXPIRED".equals(f.state(expiring)));
        assertThat(f.receiver.receivedFor(expiring)).isEmpty();
        assertThat(f.job(expiring).get("lastError").asText()).contains("expired");
        assertThat(f.executions(expiring)).isEmpty();
        assertThat(f.app.post("/api/v1/jobs/" + expiring + "/retry", "")
                        .json()
                        .get("state")
                        .asText())
                .as("an expired job can be retried by hand")
                .isEqualTo("DELAYED");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> java.util.Set.of("FINISHED", "EXPIRED", "FAILED").contains(f.state(expiring)));
        assertThat(f.state(expiring)).as("the retried job %s", f.job(expiring)).isEqualTo("FINISHED");
    }

    @Test
    void aGracefulStopWritesTheResultsOfDeliveriesUnderWay() {
        String service = f.httpService("\"timeoutMs\":5000");
        f.receiver.respond(r -> new Reply(200, "", Map.of(), 500));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(f.submit(service, 0, "").get("id").asText());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> f.receiver.received().size() >= 10);
        f.node.close();
        f.startNode();
        assertThat(ids).allMatch(id -> f.state(id).equals("FINISHED"));
        assertThat(f.receiver.received()).hasSize(10);
    }
}
