package dev.hourglass.node.dispatch.http;

import static dev.hourglass.node.dispatch.http.HttpDeliveryFailuresTest.deliver;
import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.catalog.CallbackAllowList;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.port.DeliveryResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The callback connection's keep-alive ({@code callbackKeepAliveMs}, here 300 ms) against a
 * receiver on a real socket: an idle connection is closed by the node, before a receiver's own
 * keep-alive timeout would close it under a request being sent; a request waiting for its answer
 * is bounded by the job's timeout, not by the keep-alive.
 */
class HttpKeepAliveTest {
    static final long KEEP_ALIVE_MS = 300;

    final HttpCallbackDispatcher dispatcher =
            new HttpCallbackDispatcher(new CallbackAllowList(List.of("127.0.0.1")), KEEP_ALIVE_MS, Clock.systemUTC());

    @AfterEach
    void close() {
        dispatcher.close();
    }

    @Test
    void anAnswerSlowerThanTheKeepAliveButWithinTheJobsTimeoutIsTheAttemptsResult() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Long> idleAfterAnswer = answerOnce(server, 4 * KEEP_ALIVE_MS);
            DeliveryResult result = deliver(dispatcher, "http://127.0.0.1:" + server.getLocalPort() + "/callback");
            assertThat(result.outcome())
                    .as("answered after %d ms, job timeout 5000 ms: %s", 4 * KEEP_ALIVE_MS, result.message())
                    .isEqualTo(AttemptOutcome.SUCCESS);
            assertThat(idleAfterAnswer.get(10, TimeUnit.SECONDS))
                    .as("after the answer the connection is back on the keep-alive, not the job's timeout")
                    .isBetween(KEEP_ALIVE_MS - 50, 2_500L);
        }
    }

    @Test
    void anIdleConnectionIsClosedByTheNodeAfterTheKeepAlive() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Long> idleAfterAnswer = answerOnce(server, 0);
            DeliveryResult result = deliver(dispatcher, "http://127.0.0.1:" + server.getLocalPort() + "/callback");
            assertThat(result.outcome()).as(result.message()).isEqualTo(AttemptOutcome.SUCCESS);
            long idleMs = idleAfterAnswer.get(10, TimeUnit.SECONDS);
            // after the keep-alive, and well before the job's timeout (5 s)
            assertThat(idleMs).as("the node closed the idle connection after").isBetween(KEEP_ALIVE_MS - 50, 2_500L);
        }
    }

    /**
     * Accepts one connection, reads one request, answers 200 after {@code delayMs} keeping the
     * connection open, then waits (at most 5 s) for the node to close it: completes with how long
     * the connection stayed open idle after the answer, or fails when the node kept it longer.
     */
    private static CompletableFuture<Long> answerOnce(ServerSocket server, long delayMs) {
        return CompletableFuture.supplyAsync(() -> {
            try (Socket s = server.accept()) {
                InputStream in = s.getInputStream();
                readRequest(in);
                Thread.sleep(delayMs);
                s.getOutputStream()
                        .write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                long answeredAt = System.nanoTime();
                s.setSoTimeout(5_000);
                try {
                    int next = in.read();
                    assertThat(next)
                            .as("nothing more was sent on the connection")
                            .isEqualTo(-1);
                } catch (SocketTimeoutException keptOpen) {
                    throw new AssertionError("the node kept the idle connection open for 5 s");
                }
                return (System.nanoTime() - answeredAt) / 1_000_000;
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Reads the request head and its Content-Length of body. */
    private static void readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the request ended in its head");
            }
            head.write(b);
        }
        int length = 0;
        for (String line : head.toString(StandardCharsets.US_ASCII).split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        in.readNBytes(length);
    }
}
