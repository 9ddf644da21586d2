package dev.hourglass.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CallbackSignatureTest {
    private static final String SECRET = "0123456789abcdef0123456789abcdef";
    private static final byte[] BODY = "{\"jobId\":\"1\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void aSignatureVerifiesWithinTheTolerance() {
        String header = CallbackSignature.sign(SECRET, 1_000_000, BODY);
        assertThat(header).matches("t=1000000,v1=[0-9a-f]{64}");
        assertThat(CallbackSignature.verify(SECRET, header, BODY, 1_000_000 + 299_000, 300_000))
                .isTrue();
    }

    @Test
    void tamperingStalenessAndTheWrongSecretAreRejected() {
        String header = CallbackSignature.sign(SECRET, 1_000_000, BODY);
        byte[] tampered = "{\"jobId\":\"2\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(CallbackSignature.verify(SECRET, header, tampered, 1_000_000, 300_000))
                .isFalse();
        assertThat(CallbackSignature.verify(SECRET, header, BODY, 1_000_000 + 300_001, 300_000))
                .isFalse();
        assertThat(CallbackSignature.verify("another-secret-another-secret-00", header, BODY, 1_000_000, 300_000))
                .isFalse();
        assertThat(CallbackSignature.verify(SECRET, header.replace("t=1000000", "t=1000001"), BODY, 1_000_000, 300_000))
                .isFalse();
        assertThat(CallbackSignature.verify(SECRET, "garbage", BODY, 1_000_000, 300_000))
                .isFalse();
        assertThat(CallbackSignature.verify(SECRET, null, BODY, 1_000_000, 300_000))
                .isFalse();
    }

    @Test
    void aKnownVector() {
        // HMAC-SHA256("0123456789abcdef0123456789abcdef", "1000000.{\"jobId\":\"1\"}"), computed independently
        // with: printf '%s' '1000000.{"jobId":"1"}' | openssl dgst -sha256 -hmac 0123456789abcdef0123456789abcdef
        String header = CallbackSignature.sign(SECRET, 1_000_000, BODY);
        assertThat(header).isEqualTo("t=1000000,v1=" + OPENSSL_VECTOR);
    }

    private static final String OPENSSL_VECTOR = "4fd80be936ebcaf0852393a8e81f48c833bea241b51fb344d99581c287e86c4a";
}
