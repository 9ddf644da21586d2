package dev.hourglass.node.dispatch.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.catalog.CallbackAllowList;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.Delivery;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Whether an HTTP attempt reached its receiver, against real sockets on loopback: a connection
 * that could not be made sent nothing ({@linkplain DeliveryResult#notDelivered not delivered}); a
 * connection dropped after the request was written may have delivered it (an ERROR that counts).
 */
class HttpDeliveryFailuresTest {
    final HttpCallbackDispatcher dispatcher =
            new HttpCallbackDispatcher(new CallbackAllowList(List.of("127.0.0.1")), 4_000, Clock.systemUTC());

    @AfterEach
    void close() {
        dispatcher.close();
    }

    @Test
    void aRefusedConnectionIsNotDelivered() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        DeliveryResult result = deliver(dispatcher, "http://127.0.0.1:" + closedPort + "/callback");
        assertThat(result.outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(result.reachedReceiver()).as(result.message()).isFalse();
    }

    @Test
    void aConnectionResetAfterTheRequestWasWrittenCounts() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Integer> readBytes = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    int read = in.read(new byte[64]);
                    s.setSoLinger(true, 0); // a reset, not a clean close
                    return read;
                } catch (IOException e) {
                    return -1;
                }
            });
            DeliveryResult result = deliver(dispatcher, "http://127.0.0.1:" + server.getLocalPort() + "/callback");
            assertThat(readBytes.get(10, TimeUnit.SECONDS))
                    .as("the request was written")
                    .isPositive();
            assertThat(result.outcome()).as(result.message()).isEqualTo(AttemptOutcome.ERROR);
            assertThat(result.reachedReceiver()).as(result.message()).isTrue();
        }
    }

    /** One attempt of a job with a 5 s timeout to {@code url}, its result within 15 s. */
    static DeliveryResult deliver(HttpCallbackDispatcher dispatcher, String url) throws Exception {
        ServiceDefinition service = new ServiceDefinition(
                "app",
                "svc",
                Protocol.HTTP,
                null,
                url,
                null,
                null,
                5,
                5_000,
                new Backoff(1_000, 2.0, 600_000),
                AckMode.AUTO,
                10,
                "s".repeat(32),
                null,
                0,
                0);
        Job job = new Job(
                1,
                "app",
                "svc",
                null,
                0,
                JobState.RUNNING,
                0,
                0,
                null,
                1,
                0,
                5,
                5_000,
                null,
                "{}",
                Map.of(),
                null,
                "n",
                0,
                0,
                0);
        return dispatcher
                .deliver(new Delivery(job, service, System.currentTimeMillis()))
                .toCompletableFuture()
                .get(15, TimeUnit.SECONDS);
    }
}
