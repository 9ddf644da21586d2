package dev.hourglass.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.api.CallbackSignature;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
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

    @Test
    void duringARotationACallbackSignedWithEitherSecretIsAccepted() {
        String next = "n3xt-n3xt-n3xt-n3xt-n3xt-n3xt-n3xt";
        CallbackVerifier rotating = new CallbackVerifier(List.of(next, SECRET), Duration.ofMinutes(5), clock);
        String byOld = CallbackSignature.sign(SECRET, 5_000_000, BODY);
        String byNew = CallbackSignature.sign(next, 5_000_000, BODY);
        assertThat(rotating.verify(byOld, BODY)).isTrue();
        assertThat(rotating.verify(byNew, BODY)).isTrue();
        assertThat(rotating.secretIndex(byNew, BODY))
                .as("the new secret, given first")
                .isZero();
        assertThat(rotating.secretIndex(byOld, BODY))
                .as("the old one: still in use")
                .isEqualTo(1);
        assertThat(rotating.verify(CallbackSignature.sign("x".repeat(32), 5_000_000, BODY), BODY))
                .as("a third secret")
                .isFalse();
        assertThat(rotating.secretIndex(CallbackSignature.sign(SECRET, 5_000_000 - 301_000, BODY), BODY))
                .as("stale, whichever secret signs it")
                .isEqualTo(-1);
        assertThat(rotating.verify(byOld, "{\"jobId\":\"8\"}".getBytes(StandardCharsets.UTF_8)))
                .isFalse();

        CallbackVerifier afterwards = new CallbackVerifier(List.of(next), Duration.ofMinutes(5), clock);
        assertThat(afterwards.verify(byOld, BODY)).as("the old secret dropped").isFalse();
        assertThat(afterwards.verify(byNew, BODY)).isTrue();
    }

    @Test
    void everySecretOfARotationMustBeASecret() {
        assertThatThrownBy(() -> new CallbackVerifier(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CallbackVerifier(List.of(SECRET, "short")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CallbackVerifier(java.util.Arrays.asList(SECRET, null)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
