package dev.hourglass.sdk;

import dev.hourglass.api.CallbackSignature;
import java.time.Clock;
import java.time.Duration;

/**
 * Verifies the {@code Hourglass-Signature} of an HTTP callback: HMAC-SHA256 with the service's
 * signing secret, compared in constant time, with a timestamp no further than the tolerance from
 * now so a captured request cannot be replayed later. Thread-safe.
 */
public final class CallbackVerifier {
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

    private final String secret;
    private final Duration tolerance;
    private final Clock clock;

    public CallbackVerifier(String secret) {
        this(secret, DEFAULT_TOLERANCE, Clock.systemUTC());
    }

    public CallbackVerifier(String secret, Duration tolerance, Clock clock) {
        if (secret == null || secret.length() < 32) {
            throw new IllegalArgumentException("the signing secret has at least 32 characters");
        }
        this.secret = secret;
        this.tolerance = tolerance;
        this.clock = clock;
    }

    /** True when {@code signatureHeader} signs exactly {@code body} and is fresh. */
    public boolean verify(String signatureHeader, byte[] body) {
        return CallbackSignature.verify(secret, signatureHeader, body, clock.millis(), tolerance.toMillis());
    }
}
