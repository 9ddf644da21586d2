package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.NodeProcess;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guarantee 1 of docs/api.md, "Guarantees" (durable on acknowledgement), in the mode every new user
 * meets first: a standalone node (embedded H2, embedded ZooKeeper, generated admin token; the
 * README's bare command) killed with kill -9 right after it acknowledged writes, then started again
 * on the same data directory. Each scenario repeats the kill enough times to catch a loss that
 * happens one time in ten: with H2's default write delay (commits reach the file up to 500 ms
 * later) 19 to 126 of 300 acknowledged jobs were gone.
 *
 * <p>The fixture of both scenarios, {@link StandaloneCrashIT} (submits) and {@link
 * StandaloneClaimCrashIT} (claims): two classes, so that the two test JVMs of their phase can run
 * them side by side (each is minutes of node starts).
 */
abstract class StandaloneCrash {
    /**
     * Fast housekeeping. The ZooKeeper session is the default (10 s), as a user's: a restarted
     * node does not wait for its killed predecessor's session, which its embedded ZooKeeper no
     * longer restores (docs/design.md, "Standalone mode"; checked by {@link StandaloneClaimCrashIT}).
     * The nodes run without Dubbo ({@link #startNode}): these jobs are HTTP callbacks, and Dubbo's
     * start was 2.5 s of each of the 17 starts of the two scenarios (7.4 s against 4.9 s standalone).
     */
    static final String FAST = String.join(
            "\n", "engine:", "  loadIntervalMs: 200", "  catchUpIntervalMs: 300", "  timeoutSweepIntervalMs: 200");

    /** Kept when a test fails: the data directory and every node's log, for the post-mortem. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path work;

    Path dataDir;
    NodeProcess node;
    CallbackReceiver receiver;
    int starts;

    @BeforeEach
    void start() throws Exception {
        dataDir = work.resolve("data");
        receiver = new CallbackReceiver();
        node = startNode();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (node != null) {
                node.close();
            }
        } finally {
            receiver.close();
        }
    }

    NodeProcess startNode() throws Exception {
        return NodeProcess.startStandalone("standalone-" + starts++, dataDir, FAST, false)
                .awaitReady();
    }

    ApiClient admin() throws Exception {
        return node.admin();
    }

    ApiClient newApp(String name) throws Exception {
        ApiClient.Answer app = admin().post("/api/v1/apps", "{\"name\":\"" + name + "\"}");
        assertThat(app.status()).as(app.text()).isEqualTo(201);
        return admin().as(app.json().get("token").asText());
    }

    /** The app's client against the node running now (a restart has a new port). */
    ApiClient onCurrentNode(ApiClient app) {
        return new ApiClient(node.baseUrl(), app.token());
    }

    /**
     * The ids of every job a search lists, page after page ({@code query} names its filters and
     * {@code limit}). A page answered otherwise than 200 (a node still busy starting) is asked again,
     * and printed.
     */
    static Set<String> listedIds(ApiClient client, String query) {
        Set<String> ids = new HashSet<>();
        String cursor = null;
        do {
            String url = query + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
            ApiClient.Answer[] page = {null};
            await("a 200 for " + url)
                    .atMost(Duration.ofSeconds(20))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        page[0] = client.get(url);
                        if (page[0].status() != 200) {
                            System.out.printf("STANDALONE-CRASH transient answer for %s: %s%n", url, page[0].text());
                        }
                        return page[0].status() == 200;
                    });
            JsonNode body = page[0].json();
            body.get("items").forEach(job -> ids.add(job.get("id").asText()));
            cursor =
                    body.path("nextCursor").isTextual() ? body.get("nextCursor").asText() : null;
        } while (cursor != null);
        return ids;
    }

    /**
     * 200: there; 404: lost; anything else (a node still busy starting) is asked again, and
     * printed, so that a transient answer is never counted as a loss nor goes unseen.
     */
    static boolean exists(ApiClient client, String id) {
        int[] status = {0};
        await("an answer other than 200/404 for job " + id)
                .atMost(Duration.ofSeconds(20))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    ApiClient.Answer a = client.get("/api/v1/jobs/" + id);
                    status[0] = a.status();
                    if (status[0] != 200 && status[0] != 404) {
                        System.out.printf("STANDALONE-CRASH transient answer for job %s: %s%n", id, a.text());
                    }
                    return status[0] == 200 || status[0] == 404;
                });
        return status[0] == 200;
    }
}
