package dev.hourglass.node.dubbo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.node.testing.RunsPaired;
import dev.hourglass.node.testing.Together;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A business provider that dies and comes back on the same port is called again within seconds,
 * not after Dubbo's default reconnect cycle (up to 60 s), and its jobs do not end FAILED meanwhile:
 * the scenario, through the ZooKeeper registry and at a direct URL, with the provider in a
 * process of its own.
 *
 * <p>Each scenario: the provider serves one job (the node now holds a connection to it) and dies;
 * ten jobs of the default policy (5 attempts, backoff 1 s doubling: attempts at due+0, +1, +3, +7,
 * +15 s) come due while it is down; two seconds after they were due it is started again on the
 * same port. Bounds: a probe job of the same provider, due with the others and retried every 200 ms,
 * is delivered within {@value #BACK_IN_USE_WITHIN_MS} ms of the provider's return (exported and
 * registered); every attempt fired that long or more after its return succeeds; every job ends
 * FINISHED.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@RunsPaired // a bound of 5 s for what takes about 2 s (the probe, 1.8-2.4 s in CI); it mostly waits
class DubboProviderRestartIT {
    private static final int JOBS = 10;
    /** The node's reconnect interval (2 s) plus the timer's 1 s tick, Dubbo's 1 s recovery check and margin. */
    private static final long BACK_IN_USE_WITHIN_MS = 5_000;

    DubboNode hg;
    /** Restarted providers of scenarios that are over, stopping (SIGTERM) in the background. */
    final List<Thread> stopping = new ArrayList<>();
    /** What went wrong stopping them, thrown at the end of the class. */
    final List<Exception> stopFailures = new CopyOnWriteArrayList<>();

    @BeforeAll
    void start() throws Exception {
        hg = new DubboNode();
    }

    /**
     * The node stops while the last scenario's provider does; ZooKeeper, where that provider
     * unregisters, once both have (what {@link DubboNode#close()} does, the node's stop overlapped).
     */
    @AfterAll
    void stop() throws Exception {
        Thread nodeStop = Together.inBackground(hg.node, stopFailures);
        try {
            for (Thread t : stopping) {
                t.join(); // each ends once its provider has (ProviderProcess#close: SIGKILL after 30 s)
            }
        } finally {
            nodeStop.join();
            hg.zookeeper.close();
            ZooKeeperLeftovers.delete();
        }
        if (!stopFailures.isEmpty()) {
            throw stopFailures.get(0);
        }
    }

    @Test
    void aKilledProviderRestartedThroughTheRegistryIsCalledAgainWithinSeconds() throws Exception {
        // killed: its old registration stays in ZooKeeper, and the restarted one has the same address
        restartScenario("shop-via-registry", hg.registry(), ProviderProcess::kill9); // groups of its app: shop-*
    }

    @Test
    void aStoppedProviderRestartedAtItsDirectUrlIsCalledAgainWithinSeconds() throws Exception {
        restartScenario("shop-direct", null, ProviderProcess::close);
    }

    private interface Death {
        void of(ProviderProcess provider) throws Exception;
    }

    private void restartScenario(String group, String registry, Death death) throws Exception {
        // below the ephemeral range: the port is free for seconds between the death and the return,
        // and an outgoing connection of the JVM beside this one must not take it meanwhile
        int port = NodeProcess.freePort();
        // the JVM that restarts the provider is started (and warmed) now, beside the first one: it
        // exports only when told to, so its start-up is no part of the restart the test times, and
        // started after the death it only put the jobs' fire time its seconds later
        CompletableFuture<ProviderProcess> replacement = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return ProviderProcess.start(group, port, registry);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                },
                task -> new Thread(task, "start-" + group + "-again").start());
        ProviderProcess provider = null;
        ProviderProcess restarted = null;
        try {
            provider = ProviderProcess.start(group, port, registry).export().awaitReady();
            String service = group + "-close";
            String url = registry != null ? "" : "\"url\":\"dubbo://127.0.0.1:" + port + "\",";
            // no maxAttempts, no backoff: the default policy
            assertThat(hg.app
                            .put(
                                    "/api/v1/services/" + service,
                                    "{\"protocol\":\"DUBBO\"," + url + "\"dubboGroup\":\"" + group
                                            + "\",\"dubboVersion\":\"1.0\",\"timeoutMs\":2000}")
                            .status())
                    .isEqualTo(200);
            // a probe: the same provider, retried every 200 ms throughout, shows when it is used again.
            // It fails all along like the jobs: a reference first called after the restart would
            // reconnect the (shared) connection itself and so hide how long the others wait
            String probe = group + "-probe";
            assertThat(hg.app
                            .put(
                                    "/api/v1/services/" + probe,
                                    "{\"protocol\":\"DUBBO\"," + url + "\"dubboGroup\":\"" + group
                                            + "\",\"dubboVersion\":\"1.0\",\"timeoutMs\":2000,\"maxAttempts\":1000,"
                                            + "\"backoff\":{\"initialMs\":200,\"multiplier\":1.0,\"maxMs\":200}}")
                            .status())
                    .isEqualTo(200);
            String warmUp = submit(service, System.currentTimeMillis());
            String probeWarmUp = submit(probe, System.currentTimeMillis());
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> state(warmUp).equals("FINISHED")
                            && state(probeWarmUp).equals("FINISHED"));

            death.of(provider);
            restarted = replacement.get(90, TimeUnit.SECONDS); // its JVM, warm, not exported yet
            long fireAt = System.currentTimeMillis() + 1_000;
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                ids.add(submit(service, fireAt));
            }
            String probeJob = submit(probe, fireAt);
            // due, tried and failed while the provider is down; started again two seconds after the fire time
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> System.currentTimeMillis() >= fireAt + 2_000
                            && ids.stream().allMatch(id -> !endedAttempts(id).isEmpty()));
            restarted.export().awaitReady();
            long backAt = System.currentTimeMillis();

            await().atMost(Duration.ofSeconds(90))
                    .until(() -> ids.stream().allMatch(id -> isFinal(state(id))) && isFinal(state(probeJob)));
            List<JsonNode> probeAttempts = endedAttempts(probeJob);
            long probeDeliveredAfter = NodeFixture.epochMs(
                            probeAttempts.get(probeAttempts.size() - 1).get("firedAt"))
                    - backAt;
            assertThat(state(probeJob)).isEqualTo("FINISHED");
            assertThat(probeAttempts)
                    .as("the probe failed while the provider was down")
                    .hasSizeGreaterThan(1);
            assertThat(probeDeliveredAfter)
                    .as(
                            "ms from the provider's return to the probe's delivery (retried every 200 ms); %d attempts",
                            probeAttempts.size())
                    .isLessThanOrEqualTo(BACK_IN_USE_WITHIN_MS);
            long lastFailureAfterBack = -1;
            long firstSuccessAfterBack = Long.MAX_VALUE;
            for (String id : ids) {
                List<JsonNode> attempts = endedAttempts(id);
                for (JsonNode attempt : attempts) {
                    long after = NodeFixture.epochMs(attempt.get("firedAt")) - backAt;
                    if (attempt.get("outcome").asText().equals("SUCCESS")) {
                        firstSuccessAfterBack = Math.min(firstSuccessAfterBack, after);
                    } else if (after >= 0) {
                        lastFailureAfterBack = Math.max(lastFailureAfterBack, after);
                    }
                }
                assertThat(state(id))
                        .as("job %s, provider back at %d; attempts %s", id, backAt, attempts)
                        .isEqualTo("FINISHED");
                for (JsonNode attempt : attempts) {
                    if (NodeFixture.epochMs(attempt.get("firedAt")) >= backAt + BACK_IN_USE_WITHIN_MS) {
                        assertThat(attempt.get("outcome").asText())
                                .as(
                                        "job %s: an attempt %d ms or more after the provider was back (at %d); attempts %s",
                                        id, BACK_IN_USE_WITHIN_MS, backAt, attempts)
                                .isEqualTo("SUCCESS");
                    }
                }
            }
            System.out.printf(
                    "%s: provider back %d ms after the jobs were due; probe delivered %d ms after (attempt %d);"
                            + " jobs: last failed attempt %d ms after, first success %d ms after%n",
                    group,
                    backAt - fireAt,
                    probeDeliveredAfter,
                    probeAttempts.size(),
                    lastFailureAfterBack,
                    firstSuccessAfterBack);
        } finally {
            if (provider != null) {
                provider.kill9();
            }
            if (restarted == null) {
                restarted = startedOrNull(replacement); // the scenario ended before the death
            }
            if (restarted != null) {
                // the scenario is over: its provider's graceful stop (seconds of Dubbo's shutdown
                // hook) goes on beside the next one, and the class waits for it at the end
                stopping.add(Together.inBackground(restarted, stopFailures));
            }
        }
    }

    private static ProviderProcess startedOrNull(CompletableFuture<ProviderProcess> starting) {
        try {
            return starting.get(90, TimeUnit.SECONDS);
        } catch (Exception e) {
            return null; // it did not start: nothing to stop
        }
    }

    private String submit(String service, long fireAt) {
        return hg.app
                .post("/api/v1/jobs", "{\"service\":\"" + service + "\",\"fireAt\":" + fireAt + ",\"payload\":{}}")
                .json()
                .get("id")
                .asText();
    }

    private String state(String id) {
        return hg.app.get("/api/v1/jobs/" + id).json().get("state").asText();
    }

    private static boolean isFinal(String state) {
        return state.equals("FINISHED") || state.equals("FAILED");
    }

    private List<JsonNode> endedAttempts(String id) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e :
                hg.app.get("/api/v1/jobs/" + id + "/executions").json().get("items")) {
            if (!e.path("outcome").isNull()) {
                out.add(e);
            }
        }
        return out;
    }
}
