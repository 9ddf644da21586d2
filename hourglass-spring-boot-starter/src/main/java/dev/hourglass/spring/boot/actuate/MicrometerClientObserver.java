package dev.hourglass.spring.boot.actuate;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.sdk.ClientObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * The client's calls as Micrometer meters (docs/api.md, "Spring Boot"):
 *
 * <ul>
 *   <li>{@code hourglass.client.requests}, a timer tagged {@code operation} and {@code outcome}
 *       ({@code SUCCESS} or the API's error code): one per call, retries and their waits inside;
 *   <li>{@code hourglass.client.resends}, a counter tagged {@code operation}: the sends beyond the
 *       first, so a rise shows a node refusing or unreachable before calls start to fail.
 * </ul>
 *
 * Both tags come from fixed sets, so the meters stay few.
 */
public class MicrometerClientObserver implements ClientObserver {
    static final String REQUESTS = "hourglass.client.requests";
    static final String RESENDS = "hourglass.client.resends";

    private final MeterRegistry registry;

    public MicrometerClientObserver(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void callEnded(String operation, Duration took, int sends, ErrorCode failure) {
        Timer.builder(REQUESTS)
                .description("Calls of the Hourglass API by this application's client")
                .tag("operation", operation)
                .tag("outcome", failure == null ? "SUCCESS" : failure.name())
                .register(registry)
                .record(took);
        if (sends > 1) {
            Counter.builder(RESENDS)
                    .description("Calls of the Hourglass API sent again after a refusal or a failure to connect")
                    .tag("operation", operation)
                    .register(registry)
                    .increment(sends - 1);
        }
    }
}
