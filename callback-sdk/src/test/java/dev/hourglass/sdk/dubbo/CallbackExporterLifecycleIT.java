package dev.hourglass.sdk.dubbo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.CallbackResult;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An exporter starts while another, the JVM's default Dubbo model, is being closed (a rolling
 * restart of a callback inside one application). Dubbo's Netty server reads the default model when
 * it opens its port, and a model being destroyed refuses to be used: the start failed with "Failed
 * to bind NettyServer … FrameworkModel is destroyed".
 */
@Tag("alongside") // may run beside another such class: see the parent POM's failsafe executions
class CallbackExporterLifecycleIT {

    private static CallbackExporter started() throws IOException {
        return CallbackExporter.of(request -> CallbackResult.success())
                .host("127.0.0.1")
                .port(freePort())
                .start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void anExporterStartsWhileTheDefaultOneIsBeingClosed() throws Exception {
        long deadline = System.currentTimeMillis() + 30_000; // other tests' Dubbos may still be closing
        while (!FrameworkModel.getAllInstances().isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        assertThat(FrameworkModel.getAllInstances())
                .as("no other Dubbo in this JVM: the first exporter is the default")
                .isEmpty();
        CallbackExporter closing = started();
        try {
            for (int i = 1; i <= 3; i++) {
                assertThat(FrameworkModel.getAllInstances()).hasSize(1);
                assertThat(FrameworkModel.defaultModel())
                        .as("the closing exporter is the JVM's default")
                        .isSameAs(FrameworkModel.getAllInstances().get(0));
                CallbackExporter toClose = closing;
                CompletableFuture<Void> closed = CompletableFuture.runAsync(toClose::close);
                try {
                    closing = started(); // threw "FrameworkModel is destroyed" in the window
                } finally {
                    closed.get(40, TimeUnit.SECONDS);
                }
            }
        } finally {
            closing.close();
        }
    }
}
