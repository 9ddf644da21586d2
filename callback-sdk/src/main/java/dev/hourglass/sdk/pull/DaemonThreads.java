package dev.hourglass.sdk.pull;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads named {@code <prefix>-1}, {@code <prefix>-2}, ...: a consumer never holds the JVM up. */
final class DaemonThreads implements ThreadFactory {
    private final String prefix;
    private final AtomicInteger next = new AtomicInteger();

    DaemonThreads(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public Thread newThread(Runnable task) {
        return named(prefix + "-" + next.incrementAndGet(), task);
    }

    static Thread named(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }
}
