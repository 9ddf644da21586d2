package dev.hourglass.node.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.StallWatch;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Jobs are claimed up to {@code claimLeadMs} before their fire time (a round starts when the earliest
 * is half the lead away) and sent at it. With a long lead the
 * window is wide enough to observe: a claimed job is RUNNING before its time, is still not sent
 * early, and a cancel in that window stops it.
 */
class ClaimAheadIT {
    static NodeFixture f;
    static String service;

    @BeforeAll
    static void start() throws Exception {
        // jobs due 4.5 s ahead are claimed 2.5 s ahead, and the test has seconds to see them claimed
        // and not sent before their fire time, even on a machine that stalls for one
        f = new NodeFixture(c -> {
            c.engine.claimLeadMs = 5_000;
            c.dubbo.enabled = false; // HTTP callbacks only
        });
        service = f.httpService("");
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void aJobClaimedAheadIsSentAtItsFireTimeNotBefore() {
        var job = f.submit(service, 4_500, "");
        String id = job.get("id").asText();
        await().atMost(Duration.ofSeconds(4)).until(() -> "RUNNING".equals(f.state(id)));
        assertThat(f.receiver.receivedFor(id)).as("claimed, not sent").isEmpty();
        try (StallWatch stalls = new StallWatch()) {
            await().atMost(Duration.ofSeconds(8)).until(() -> "FINISHED".equals(f.state(id)));
            assertThat(f.receiver.receivedFor(id).get(0).at())
                    .isGreaterThanOrEqualTo(NodeFixture.epochMs(job.get("fireAt")));
            // claimed seconds ahead, sent at its fire time: a claim at the fire time is not needed
            assertThat(f.executions(id).get(0).get("latenessMs").asLong())
                    .as("%s", stalls)
                    .isBetween(0L, 100L + stalls.longestStallMs());
        }
    }

    @Test
    void aJobCanceledAfterItsClaimIsNotSent() {
        String id = f.submit(service, 4_500, "").get("id").asText();
        await().atMost(Duration.ofSeconds(4)).until(() -> "RUNNING".equals(f.state(id)));
        assertThat(f.app.delete("/api/v1/jobs/" + id).json().get("state").asText())
                .isEqualTo("CANCELED");
        assertThat(f.app.patch("/api/v1/jobs/" + id, "{\"delayMs\":10}").status())
                .isEqualTo(409);
        String witness = f.submit(service, 5_000, "").get("id").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> "FINISHED".equals(f.state(witness)));
        assertThat(f.receiver.receivedFor(id)).isEmpty();
        assertThat(f.state(id)).isEqualTo("CANCELED");
    }
}
