package dev.hourglass.node.cluster;

import java.lang.instrument.Instrumentation;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Holds the ZooKeeper event thread that handles a session expiry right after Curator
 * opened the new session from it ({@code org.apache.curator.ConnectionState#handleExpiredSession}),
 * before that thread marks Curator disconnected and posts LOST. The new session's own event thread
 * connects meanwhile and posts LOST, RECONNECTED; the held one then posts a second LOST. That is
 * Curator's race on session expiry (CURATOR-367, fixed in Curator 2.12 and not in 3.x–5.x): rare by
 * itself (a few microseconds' window, seen twice in CI), certain with the hold.
 *
 * <p>The hold lasts until {@link #release()} (or {@code hold} at most) and applies to every Curator
 * client of the JVM until {@link #close()}.
 */
final class HeldSessionExpiry implements AutoCloseable {
    private final Instrumentation instrumentation;
    private final ResettableClassFileTransformer transformer;

    private HeldSessionExpiry(Instrumentation instrumentation, ResettableClassFileTransformer transformer) {
        this.instrumentation = instrumentation;
        this.transformer = transformer;
    }

    static HeldSessionExpiry install(Duration hold) {
        Instrumentation instrumentation = ByteBuddyAgent.install();
        Hold.held.set(0);
        Hold.release = new CountDownLatch(1);
        ResettableClassFileTransformer transformer = new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(AgentBuilder.Listener.StreamWriting.toSystemError().withErrorsOnly())
                .type(ElementMatchers.named("org.apache.curator.ConnectionState"))
                .transform((builder, type, loader, module, domain) ->
                        builder.visit(Advice.to(Hold.class).on(ElementMatchers.named("handleExpiredSession"))))
                .installOn(instrumentation);
        Hold.millis = hold.toMillis(); // only once installed: a failed install leaves no hold behind
        return new HeldSessionExpiry(instrumentation, transformer);
    }

    /** Lets the held thread go on. */
    void release() {
        Hold.release.countDown();
    }

    /** How many expiries were held so far (0 means the hold never applied). */
    int held() {
        return Hold.held.get();
    }

    @Override
    public void close() {
        Hold.millis = 0;
        Hold.release.countDown();
        transformer.reset(instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
    }

    /** Inlined into Curator's class: public, and only static state. */
    public static final class Hold {
        public static volatile long millis;
        public static volatile CountDownLatch release = new CountDownLatch(0);
        public static final AtomicInteger held = new AtomicInteger();

        private Hold() {}

        @Advice.OnMethodExit
        public static void afterTheNewSessionWasOpened() {
            long ms = millis;
            if (ms > 0) {
                held.incrementAndGet();
                try {
                    release.await(ms, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
