package dev.hourglass.node.dispatch.dubbo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.TraceContext;
import dev.hourglass.node.core.port.Delivery;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.dubbo.DubboRuntime;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.sdk.dubbo.CallbackExporter;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.rpc.RpcContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * How real Dubbo failures are classified: an attempt that never left the node (nobody listening,
 * no provider) is {@linkplain DeliveryResult#notDelivered not delivered}; one that was sent and then
 * lost its connection, timed out or was answered with an exception reached the receiver.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@RunsAlongside
class DubboDeliveryFailuresIT {
    DubboRuntime dubbo;
    DubboCallbackDispatcher dispatcher;

    @BeforeAll
    void start() {
        dubbo = DubboRuntime.configure("failures", "127.0.0.1", 0, null, 2_000);
        dubbo.start(Map.of());
        dispatcher = new DubboCallbackDispatcher(dubbo);
    }

    @AfterAll
    void stop() {
        dispatcher.close();
        dubbo.close();
    }

    @Test
    void nobodyListeningIsNotDelivered() throws Exception {
        String url = "dubbo://127.0.0.1:" + freePort();
        DeliveryResult result = deliver("nobody", url, 2_000);
        assertThat(result.outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(result.reachedReceiver()).as(result.message()).isFalse();
        // and again, now that Dubbo holds the reference and its broken connection
        DeliveryResult again = deliver("nobody", url, 2_000);
        assertThat(again.reachedReceiver()).as(again.message()).isFalse();
    }

    @Test
    void aConnectionLostAfterTheRequestWasSentReachedTheReceiver() throws Exception {
        // accepts, reads the request's first bytes, then drops the connection without an answer
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Integer> readBytes = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    int first = in.read(new byte[16]);
                    s.setSoLinger(true, 0); // a reset, not a clean close
                    return first;
                } catch (IOException e) {
                    return -1;
                }
            });
            DeliveryResult result = deliver("dropped", "dubbo://127.0.0.1:" + server.getLocalPort(), 5_000);
            assertThat(readBytes.get(10, TimeUnit.SECONDS))
                    .as("the request was written")
                    .isPositive();
            assertThat(result.outcome()).as(result.message()).isIn(AttemptOutcome.ERROR, AttemptOutcome.TIMEOUT);
            assertThat(result.reachedReceiver()).as(result.message()).isTrue();
        }
    }

    @Test
    void aTimeoutOrTheCallbacksExceptionReachedTheReceiver() throws Exception {
        int port = freePort();
        CallbackExporter provider = CallbackExporter.of(request -> {
                    if (request.getPayload().contains("throw")) {
                        throw new IllegalStateException("the shop's database is down");
                    }
                    sleep(1_000);
                    return CallbackResult.success();
                })
                .group("answers")
                .version("1.0")
                .host("127.0.0.1")
                .port(port)
                .start();
        try {
            String url = "dubbo://127.0.0.1:" + port;
            DeliveryResult thrown = deliver("answers", url, 5_000, "{\"throw\":true}");
            assertThat(thrown.outcome()).as(thrown.message()).isEqualTo(AttemptOutcome.RETRY);
            assertThat(thrown.reachedReceiver()).isTrue();
            DeliveryResult late = deliver("answers", url, 200, "{}");
            assertThat(late.outcome()).as(late.message()).isEqualTo(AttemptOutcome.TIMEOUT);
            assertThat(late.reachedReceiver()).isTrue();
        } finally {
            provider.close();
        }
    }

    @Test
    void aJobWithoutATraceSendsNoneEvenWhenItsThreadHoldsAnother() throws Exception {
        int port = freePort();
        Map<String, String> sawTraceparent = new java.util.concurrent.ConcurrentHashMap<>();
        CallbackExporter provider = CallbackExporter.of(request -> {
                    String t = RpcContext.getServerAttachment().getAttachment(TraceContext.TRACEPARENT);
                    sawTraceparent.put(request.getPayload(), t == null ? "none" : t);
                    return CallbackResult.success();
                })
                .group("traces")
                .version("1.0")
                .host("127.0.0.1")
                .port(port)
                .start();
        try {
            String url = "dubbo://127.0.0.1:" + port;
            String parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
            String stale = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

            // what another call left on this thread, as instrumentation may
            RpcContext.getClientAttachment().setAttachment(TraceContext.TRACEPARENT, stale);
            deliver("traces", url, 5_000, "{\"n\":1}", Map.of());
            RpcContext.getClientAttachment().setAttachment(TraceContext.TRACEPARENT, stale);
            deliver("traces", url, 5_000, "{\"n\":2}", Map.of(TraceContext.TRACEPARENT_ATTRIBUTE, parent));

            assertThat(sawTraceparent).containsEntry("{\"n\":1}", "none").containsEntry("{\"n\":2}", parent);
        } finally {
            RpcContext.getClientAttachment().removeAttachment(TraceContext.TRACEPARENT);
            provider.close();
        }
    }

    private DeliveryResult deliver(String group, String url, long timeoutMs) throws Exception {
        return deliver(group, url, timeoutMs, "{}");
    }

    private DeliveryResult deliver(String group, String url, long timeoutMs, String payload) throws Exception {
        return deliver(group, url, timeoutMs, payload, Map.of());
    }

    private DeliveryResult deliver(
            String group, String url, long timeoutMs, String payload, Map<String, String> attributes) throws Exception {
        ServiceDefinition service = new ServiceDefinition(
                "app",
                group,
                Protocol.DUBBO,
                null,
                url,
                group,
                "1.0",
                5,
                timeoutMs,
                new Backoff(1_000, 2.0, 600_000),
                AckMode.AUTO,
                10,
                null,
                null,
                0,
                0);
        Job job = new Job(
                1,
                "app",
                group,
                null,
                0,
                JobState.RUNNING,
                0,
                0,
                null,
                1,
                0,
                5,
                timeoutMs,
                null,
                payload,
                attributes,
                null,
                "failures",
                0,
                0,
                0);
        return dispatcher
                .deliver(new Delivery(job, service, System.currentTimeMillis()))
                .toCompletableFuture()
                .get(timeoutMs + 10_000, TimeUnit.MILLISECONDS);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
