package dev.hourglass.node.dubbo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.hourglass.node.testing.RunsAlongside;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Several nodes' Dubbos in one JVM (tests, an embedding application): one starts while another,
 * the JVM's default Dubbo model, is being destroyed, as when a node's stop abandoned a slow Dubbo
 * close and the next node started. Seen in CI: "Failed to bind NettyServer … FrameworkModel is
 * destroyed", because Dubbo's Netty server reads the default model when it opens its port.
 */
@RunsAlongside
class DubboLifecycleIT {
    /** What the runtimes export: any interface opens the protocol's port. */
    public interface Echo {
        String echo(String text);
    }

    private final List<DubboRuntime> runtimes = new ArrayList<>();

    @AfterEach
    void closeAll() {
        runtimes.forEach(DubboRuntime::close);
    }

    private DubboRuntime configured(String name) {
        DubboRuntime runtime = DubboRuntime.configure(name, "127.0.0.1", 0, null, 2_000);
        runtimes.add(runtime);
        return runtime;
    }

    private static Map<Class<?>, Object> echo() {
        return Map.of(Echo.class, (Echo) text -> text);
    }

    @Test
    void aDubboStartsWhileTheDefaultOneIsBeingDestroyed() throws Exception {
        // the default model is the first one alive; other tests' Dubbos may still be closing
        await().atMost(Duration.ofSeconds(40))
                .until(() -> FrameworkModel.getAllInstances().isEmpty());
        DubboRuntime closing = configured("lifecycle-0");
        closing.start(echo());
        for (int i = 1; i <= 5; i++) {
            assertThat(FrameworkModel.defaultModel())
                    .as("the closing Dubbo is the JVM's default")
                    .isSameAs(closing.frameworkModel());
            DubboRuntime next = configured("lifecycle-" + i);
            DubboRuntime toClose = closing;
            CompletableFuture<Void> closed = CompletableFuture.runAsync(toClose::close);
            next.start(echo()); // threw "FrameworkModel is destroyed" in the window
            closed.get(40, TimeUnit.SECONDS);
            runtimes.remove(toClose);
            closing = next;
        }
    }

    /**
     * {@code dubbo.port: 0} chooses a free port when the node is configured and Dubbo binds it when
     * the node starts; in between another process took it (seen in CI: "Dubbo could not start on
     * port 31179"). The start chooses another port instead of failing the node.
     */
    @Test
    void aChosenPortTakenBeforeTheStartIsReplacedByAnother() throws Exception {
        DubboRuntime runtime = configured("port-taken");
        int chosen = runtime.port();
        try (ServerSocket other = new ServerSocket(chosen, 1, InetAddress.getByName("127.0.0.1"))) {
            runtime.start(echo());
            assertThat(runtime.port()).isNotEqualTo(chosen).isPositive();
            var reference = runtime.reference(Echo.class, null, null, "dubbo://127.0.0.1:" + runtime.port(), 5_000);
            try {
                assertThat(reference.get().echo("on the new port")).isEqualTo("on the new port");
            } finally {
                reference.destroy();
            }
        }
    }

    /** A port the operator configured is not replaced: the start fails and says which port. */
    @Test
    void aConfiguredPortThatIsTakenFailsTheStart() throws Exception {
        try (ServerSocket other = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            DubboRuntime runtime = DubboRuntime.configure("configured", "127.0.0.1", other.getLocalPort(), null, 2_000);
            runtimes.add(runtime);
            assertThatThrownBy(() -> runtime.start(echo()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Dubbo could not start on port " + other.getLocalPort());
            assertThat(runtime.port()).isEqualTo(other.getLocalPort());
        }
    }
}
