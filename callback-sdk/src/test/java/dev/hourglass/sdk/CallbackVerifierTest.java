package dev.hourglass.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.api.CallbackSignature;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class CallbackVerifierTest {
    private static final String SECRET = "s3cret-s3cret-s3cret-s3cret-s3cret";
    private static final byte[] BODY = "{\"jobId\":\"7\",\"attempt\":1}".getBytes(StandardCharsets.UTF_8);
    private final Clock clock = Clock.fixed(Instant.ofEpochMilli(5_000_000), ZoneOffset.UTC);
    private final CallbackVerifier verifier = new CallbackVerifier(SECRET, Duration.ofMinutes(5), clock);

    @Test
    void acceptsAFreshSignatureOfTheBody() {
        assertThat(verifier.verify(CallbackSignature.sign(SECRET, 5_000_000 - 1_000, BODY), BODY))
                .isTrue();
    }

    @Test
    void rejectsTamperedStaleOrForeignSignatures() {
        String header = CallbackSignature.sign(SECRET, 5_000_000, BODY);
        assertThat(verifier.verify(header, "{\"jobId\":\"8\",\"attempt\":1}".getBytes(StandardCharsets.UTF_8)))
                .isFalse();
        assertThat(verifier.verify(CallbackSignature.sign(SECRET, 5_000_000 - 301_000, BODY), BODY))
                .isFalse();
        assertThat(verifier.verify(CallbackSignature.sign("x".repeat(32), 5_000_000, BODY), BODY))
                .isFalse();
        assertThatThrownBy(() -> new CallbackVerifier("short")).isInstanceOf(IllegalArgumentException.class);
    }
}
