package dev.hourglass.node.background;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's one thread factory: daemon threads (a node that is not stopped must not keep the JVM
 * alive through a pool), named {@code name} so a thread dump says whose they are; from the second
 * on, {@code name-1}, {@code name-2}, ….
 */
public final class DaemonThreads {
    private DaemonThreads() {}

    public static ThreadFactory named(String name) {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            int n = count.getAndIncrement();
            Thread t = new Thread(r, n == 0 ? name : name + "-" + n);
            t.setDaemon(true);
            return t;
        };
    }

    /** One daemon thread named {@code name}, not started. */
    public static Thread thread(String name, Runnable task) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        return t;
    }
}
