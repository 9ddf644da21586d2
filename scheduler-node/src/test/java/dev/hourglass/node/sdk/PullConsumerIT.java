package dev.hourglass.node.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.pull.PullConsumer;
import dev.hourglass.sdk.pull.PullResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SDK's {@code PullConsumer} against a real node: handlers slower than their TTR keep their
 * reservations (touch), results are acknowledged in batches, and a graceful stop gives back the
 * reservations it never started without using an attempt (docs/api.md, "Pull consumers").
 */
class PullConsumerIT {
    static NodeFixture f;
    static HourglassClient client;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture(c -> c.dubbo.enabled = false); // the SDK reserves over HTTP
        client = HourglassClient.create(f.node.baseUrl(), f.appToken);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static String pullService(String name) {
        assertThat(f.app.put("/api/v1/services/" + name, "{\"protocol\":\"PULL\"}")
                        .status())
                .isEqualTo(200);
        return name;
    }

    private static List<String> submit(String service, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(f.submit(service, 0, "").get("id").asText());
        }
        return ids;
    }

    @Test
    void everyJobIsHandledOnceAndAHandlerSlowerThanItsTtrKeepsItsReservation() {
        String s = pullService("reports");
        List<String> ids = submit(s, 60);
        Set<String> slow = Set.of(ids.get(0), ids.get(30));
        Set<String> handled = ConcurrentHashMap.newKeySet();
        List<String> twice = new java.util.concurrent.CopyOnWriteArrayList<>();
        PullConsumer consumer = PullConsumer.builder(client)
                .services(s)
                .handler(job -> {
                    if (!handled.add(job.getId())) {
                        twice.add(job.getId());
                    }
                    if (slow.contains(job.getId())) {
                        Thread.sleep(2_600); // the TTR is 1 s: only touches keep it
                    }
                    return PullResult.success();
                })
                .threads(4)
                .batchSize(10)
                .longPollWait(Duration.ofSeconds(1))
                .ttr(Duration.ofSeconds(1))
                .build();
        consumer.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> consumer.getSucceeded() == ids.size());
        } finally {
            assertThat(consumer.stop(Duration.ofSeconds(10))).isTrue();
        }
        assertThat(handled).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(twice).as("no job handled twice").isEmpty();
        assertThat(consumer.getLostReservations()).isZero();
        for (String id : slow) {
            assertThat(f.state(id)).isEqualTo("FINISHED");
            assertThat(f.executions(id))
                    .as("touched: no TIMEOUT though the handler ran 2.6 times its TTR")
                    .extracting(e -> e.get("outcome").asText())
                    .containsExactly("SUCCESS");
        }
    }

    @Test
    void aGracefulStopReleasesWhatItReservedAndNeverStartedWithoutUsingAnAttempt() throws Exception {
        String s = pullService("exports");
        String running = submit(s, 1).get(0);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Set<String> handled = ConcurrentHashMap.newKeySet();
        PullConsumer consumer = PullConsumer.builder(client)
                .services(s)
                .handler(job -> {
                    handled.add(job.getId());
                    started.countDown();
                    finish.await(20, TimeUnit.SECONDS);
                    return PullResult.success();
                })
                .threads(2)
                .batchSize(1)
                .longPollWait(Duration.ofSeconds(3))
                .ttr(Duration.ofSeconds(60))
                .build();
        consumer.start();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        // one handler runs; the free worker's reserve waits (long poll). Stop now, then a job comes:
        // the waiting reserve brings it to a consumer that is stopping, which must give it back
        java.util.concurrent.CompletableFuture<Boolean> stopped =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> consumer.stop(Duration.ofSeconds(10)));
        Thread.sleep(300);
        String unstarted = submit(s, 1).get(0);
        await().atMost(Duration.ofSeconds(5)).until(() -> consumer.getReleased() == 1);
        finish.countDown();
        assertThat(stopped.get(15, TimeUnit.SECONDS)).isTrue();

        assertThat(handled).as("never started").doesNotContain(unstarted);
        assertThat(f.state(running))
                .as("the running one finished and was acknowledged")
                .isEqualTo("FINISHED");
        JsonNode job = f.job(unstarted);
        assertThat(job.get("state").asText()).as("back in the queue").isEqualTo("DELAYED");
        // released, not spent: maxAttempts as the service says (what a release leaves of the
        // budget is PullContract's, releaseReturnsTheJobWithoutUsingAnAttempt)
        assertThat(job.get("maxAttempts").asInt())
                .as("no attempt used by the stop")
                .isEqualTo(5);
        assertThat(job.get("attempts").asInt()).isEqualTo(1);
        assertThat(f.executions(unstarted))
                .extracting(e -> e.get("outcome").asText())
                .containsExactly("RELEASED");
        assertThat(f.app.get("/api/v1/services/" + s + "/queue")
                        .json()
                        .get("ready")
                        .asLong())
                .as("released with no delay: ready for the next consumer")
                .isEqualTo(1);
    }
}
