package dev.hourglass.sdk;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The one timer of every {@link HourglassClient} in the JVM: it only starts a retry's next try after
 * its wait (the call itself runs on the HTTP client's threads). A daemon thread, so a client needs
 * no closing.
 */
final class RetryTimer {
    static final ScheduledExecutorService INSTANCE = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "hourglass-client-retry");
        t.setDaemon(true);
        return t;
    });

    private RetryTimer() {}
}
