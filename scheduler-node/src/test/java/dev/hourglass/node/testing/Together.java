package dev.hourglass.node.testing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Closes test resources side by side, each on a thread of its own: for a teardown, where how nodes
 * or providers leave is no part of the test, and one graceful stop after the other (a second or two
 * each) would only add to the suite's time.
 */
public final class Together {
    private Together() {}

    /**
     * Closes every one of {@code resources} (nulls skipped) at once and returns when all have ended;
     * the first failure is thrown then, the others added to it as suppressed.
     */
    public static void close(Collection<? extends AutoCloseable> resources) throws Exception {
        List<Thread> closing = new ArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        for (AutoCloseable r : resources) {
            if (r != null) {
                closing.add(inBackground(r, failures));
            }
        }
        for (Thread t : closing) {
            t.join();
        }
        if (!failures.isEmpty()) {
            Exception first = failures.get(0);
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    /**
     * Starts closing {@code resource} on a thread of its own and returns that thread, for a caller
     * that goes on and joins it later; a failure is added to {@code failures}.
     */
    public static Thread inBackground(AutoCloseable resource, List<Exception> failures) {
        Thread t = new Thread(
                () -> {
                    try {
                        resource.close();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        failures.add(e);
                    } catch (Exception e) {
                        failures.add(e);
                    }
                },
                "test-close-" + resource.getClass().getSimpleName());
        t.start();
        return t;
    }
}
