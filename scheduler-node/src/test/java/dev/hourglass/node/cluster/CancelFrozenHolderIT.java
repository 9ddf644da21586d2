package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.node.testing.ProcessCluster;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cancel through one node of a job whose attempt another node has claimed and not sent: the
 * holder is asked to withhold it, and the cancel commits only with its answer (docs/design.md, "No
 * database read at the fire time"). Here the holder is frozen (SIGSTOP) while still a member of the
 * cluster: the cancel must fail with 503 and change nothing — committing it could not stop the
 * holder, which sends from memory once it wakes. Thawed before its session ends, the holder answers,
 * and the cancel stops the attempt: never delivered, no attempt counted.
 */
@RunsAlongside
class CancelFrozenHolderIT {
    TestingServer zookeeper;
    CallbackReceiver receiver;
    NodeProcess a;
    NodeProcess b;
    final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void start() throws Exception {
        zookeeper = new TestingServer(true);
        receiver = new CallbackReceiver();
        receiver.respond(r -> {
            try {
                release.await(60, TimeUnit.SECONDS); // holds the service's only slot
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Reply.ok();
        });
        String jdbcUrl = EmbeddedMariaDb.newDatabase();
        // a session long enough that a's shard lease (two thirds of it) outlasts the frozen cancel,
        // also when this class runs short of CPU beside other test JVMs (README, "Tests")
        String extra = "  zkSessionTimeoutMs: 30000";
        // Dubbo off: HTTP callbacks only (its start was ~1.5 CPU-s per node process)
        a = NodeProcess.start("fa", jdbcUrl, zookeeper.getConnectString(), "/hg-frozen", extra, false);
        b = NodeProcess.start("fb", jdbcUrl, zookeeper.getConnectString(), "/hg-frozen", extra, false);
        a.awaitReady();
        b.awaitReady();
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        try {
            a.resume(); // a frozen process would not stop
        } finally {
            ProcessCluster.stop(List.of(a, b), receiver, zookeeper);
        }
    }

    @Test
    void aCancelWhoseHolderIsFrozenFailsAndChangesNothingThenStopsTheAttemptOnceItAnswers() throws Exception {
        ApiClient admin = new ApiClient(a.baseUrl(), TestNodes.ADMIN_TOKEN);
        String token = admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText();
        ApiClient viaA = new ApiClient(a.baseUrl(), token);
        ApiClient viaB = new ApiClient(b.baseUrl(), token);
        assertThat(viaA.put(
                                "/api/v1/services/slow",
                                "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url()
                                        + "\",\"maxInFlight\":1,\"timeoutMs\":60000}")
                        .status())
                .isBetween(200, 201);
        ProcessCluster.awaitTwoNodesSharingTheShards(admin);
        // near-term jobs submitted through a go to a's shards: a claims both, sends one (the
        // receiver holds it), and the other waits at the service's gate, claimed, RUNNING on a
        long fireAt = System.currentTimeMillis() + 1_000;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            ids.add(viaA.post("/api/v1/jobs", "{\"service\":\"slow\",\"fireAt\":" + fireAt + "}")
                    .json()
                    .get("id")
                    .asText());
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> receiver.received().size() == 1
                        && ids.stream().allMatch(id -> state(viaB, id).equals("RUNNING")));
        String waiting = ids.stream()
                .filter(id -> !id.equals(receiver.received().get(0).jobId()))
                .findFirst()
                .orElseThrow();

        a.pause();
        long started = System.nanoTime();
        ApiClient.Answer refused = viaB.delete("/api/v1/jobs/" + waiting);
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertThat(refused.status()).as(refused.text()).isEqualTo(503);
        assertThat(refused.errorCode()).isEqualTo("UNAVAILABLE");
        assertThat(refused.json().get("error").get("message").asText())
                .contains("node fa holds attempt 1")
                .contains("nothing was changed");
        assertThat(tookMs).as("it waited for an answer").isGreaterThanOrEqualTo(1_900);
        JsonNode unchanged = viaB.get("/api/v1/jobs/" + waiting).json();
        assertThat(unchanged.get("state").asText()).isEqualTo("RUNNING");
        assertThat(unchanged.get("attempts").asInt()).isEqualTo(1);

        a.resume();
        // as a client would: a 503 changed nothing, so ask again. Once a answers (a process just
        // thawed on a busy machine may take longer than the 2 s b waits), the cancel goes through
        ApiClient.Answer[] answer = new ApiClient.Answer[1];
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            answer[0] = viaB.delete("/api/v1/jobs/" + waiting);
            return answer[0].status() != 503;
        });
        ApiClient.Answer canceled = answer[0];
        assertThat(canceled.status()).as(canceled.text()).isEqualTo(200);
        assertThat(canceled.json().get("state").asText()).isEqualTo("CANCELED");
        assertThat(canceled.json().get("lastError").asText())
                .as("withheld by a: it never left")
                .isEqualTo("canceled");
        assertThat(canceled.json().get("attempts").asInt()).isZero();

        release.countDown(); // the gate opens: a wrongly kept attempt would go out now
        long openedAt = System.currentTimeMillis();
        await().atMost(Duration.ofSeconds(10)).until(() -> System.currentTimeMillis() > openedAt + 2_000);
        assertThat(receiver.receivedFor(waiting))
                .as("the canceled job was delivered")
                .isEmpty();
        assertThat(viaB.get("/api/v1/jobs/" + waiting + "/executions").json().get("items"))
                .isEmpty();
    }

    private static String state(ApiClient api, String id) {
        return api.get("/api/v1/jobs/" + id).json().get("state").asText();
    }
}
