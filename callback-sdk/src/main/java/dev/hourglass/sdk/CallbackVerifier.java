package dev.hourglass.sdk;

import dev.hourglass.api.CallbackSignature;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * Verifies the {@code Hourglass-Signature} of an HTTP callback: HMAC-SHA256 with the service's
 * signing secret, compared in constant time, with a timestamp no further than the tolerance from
 * now so a captured request cannot be replayed later. Thread-safe.
 *
 * <p><b>Rotating the secret.</b> A verifier may hold several secrets and accepts a callback signed
 * with any of them. During a rotation it holds two — the new one and the one it replaces — so that
 * callbacks keep verifying whichever the node signs with: deploy the receivers with both, then give
 * the service its new secret ({@code PUT /api/v1/services/{name}} with {@code signingSecret}), then,
 * once no callback has used the old one for a while ({@link #secretIndex} tells), deploy with the
 * new one alone.
 */
public final class CallbackVerifier {
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

    private final List<String> secrets;
    private final Duration tolerance;
    private final Clock clock;

    public CallbackVerifier(String secret) {
        this(secret, DEFAULT_TOLERANCE, Clock.systemUTC());
    }

    public CallbackVerifier(String secret, Duration tolerance, Clock clock) {
        this(java.util.Collections.singletonList(secret), tolerance, clock);
    }

    /** Accepts a callback signed with any of {@code secrets} (a rotation: the new secret and the old). */
    public CallbackVerifier(Collection<String> secrets) {
        this(secrets, DEFAULT_TOLERANCE, Clock.systemUTC());
    }

    public CallbackVerifier(Collection<String> secrets, Duration tolerance, Clock clock) {
        if (secrets == null || secrets.isEmpty()) {
            throw new IllegalArgumentException("at least one signing secret");
        }
        for (String secret : secrets) {
            if (secret == null || secret.length() < 32) {
                throw new IllegalArgumentException("the signing secret has at least 32 characters");
            }
        }
        this.secrets = List.copyOf(secrets);
        this.tolerance = tolerance;
        this.clock = clock;
    }

    /** True when {@code signatureHeader} signs exactly {@code body} with one of the secrets and is fresh. */
    public boolean verify(String signatureHeader, byte[] body) {
        return secretIndex(signatureHeader, body) >= 0;
    }

    /**
     * Which secret signs the callback: its position in the order the secrets were given, or -1 when
     * none does (or the timestamp is stale). Every secret is tried, so the time taken does not tell
     * which one matched. A receiver that counts callbacks still signed with the old secret knows
     * when it can drop it.
     */
    public int secretIndex(String signatureHeader, byte[] body) {
        long now = clock.millis();
        int found = -1;
        for (int i = 0; i < secrets.size(); i++) {
            boolean signs = CallbackSignature.verify(secrets.get(i), signatureHeader, body, now, tolerance.toMillis());
            if (signs && found < 0) {
                found = i;
            }
        }
        return found;
    }
}
