package dev.hourglass.examples;

import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.pull.PullConsumer;
import dev.hourglass.sdk.pull.PullResult;
import java.time.Duration;

/**
 * A PULL service's consumer: {@code java ... PullConsumerExample http://127.0.0.1:8080 <appToken>}
 * (or {@code HOURGLASS_URL} and {@code HOURGLASS_TOKEN} in the environment), for a service created
 * with {@code PUT /api/v1/services/order-close {"protocol":"PULL"}}. Stops gracefully on Ctrl-C:
 * jobs reserved and not started go back at once, running ones finish and are reported.
 */
public final class PullConsumerExample {
    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : System.getenv("HOURGLASS_URL");
        String token = args.length > 1 ? args[1] : System.getenv("HOURGLASS_TOKEN");
        if (url == null || token == null) {
            System.err.println(
                    "usage: PullConsumerExample <hourglassUrl> <appToken>, or set HOURGLASS_URL and HOURGLASS_TOKEN");
            System.exit(2);
        }
        PullConsumer consumer = PullConsumer.builder(HourglassClient.create(url, token))
                .services("order-close")
                .handler(job -> {
                    System.out.printf(
                            "closing order %s (job %s, attempt %d): %s%n",
                            job.getBizKey(), job.getId(), job.getAttempt(), job.getPayload());
                    return PullResult.success(); // or retryAfter(ms, why), fail(why), release(delayMs)
                })
                .threads(4)
                .batchSize(50)
                .longPollWait(Duration.ofSeconds(20))
                .ttr(Duration.ofMinutes(1))
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> consumer.stop(Duration.ofSeconds(30))));
        consumer.start();
        Thread.currentThread().join();
    }
}
