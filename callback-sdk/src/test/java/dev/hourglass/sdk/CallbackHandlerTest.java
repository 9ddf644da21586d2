package dev.hourglass.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.CallbackSignature;
import dev.hourglass.sdk.http.CallbackHandler;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CallbackHandlerTest {
    private static final String SECRET = "0123456789abcdef0123456789abcdef";
    private static final byte[] BODY =
            ("{\"jobId\":\"42\",\"app\":\"shop\",\"service\":\"close\",\"bizKey\":\"order-42\","
                            + "\"attempt\":2,\"maxAttempts\":5,\"fireAt\":\"2026-11-21T15:30:00.000Z\","
                            + "\"firedAt\":\"2026-11-21T15:30:00.003Z\",\"payload\":{\"orderId\":42},\"attributes\":{\"k\":\"v\"}}")
                    .getBytes(StandardCharsets.UTF_8);

    private static String signed() {
        return CallbackSignature.sign(SECRET, System.currentTimeMillis(), BODY);
    }

    @Test
    void aSignedCallbackReachesTheImplementationAndItsResultIsAnswered() {
        AtomicReference<dev.hourglass.api.CallbackRequest> seen = new AtomicReference<>();
        CallbackHandler handler = new CallbackHandler(SECRET, request -> {
            seen.set(request);
            return CallbackResult.retryAfter(5_000, "busy");
        });
        CallbackHandler.Answer answer = handler.handle(signed(), BODY);
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("{\"status\":\"RETRY\",\"retryAfterMs\":5000,\"message\":\"busy\"}");
        assertThat(seen.get().getJobId()).isEqualTo("42");
        assertThat(seen.get().getAttempt()).isEqualTo(2);
        assertThat(seen.get().getPayload()).isEqualTo("{\"orderId\":42}");
        assertThat(seen.get().getAttributes()).containsEntry("k", "v");
        assertThat(seen.get().getFiredAt().toEpochMilli()
                        - seen.get().getFireAt().toEpochMilli())
                .isEqualTo(3);
    }

    @Test
    void badSignaturesBadBodiesAndExceptionsNeverLookLikeSuccess() {
        CallbackHandler handler = new CallbackHandler(SECRET, request -> CallbackResult.success());
        assertThat(handler.handle("t=1,v1=00", BODY).status()).isEqualTo(401);
        assertThat(handler.handle(null, BODY).status()).isEqualTo(401);
        byte[] garbage = "not json".getBytes(StandardCharsets.UTF_8);
        assertThat(handler.handle(CallbackSignature.sign(SECRET, System.currentTimeMillis(), garbage), garbage)
                        .status())
                .isEqualTo(400);
        CallbackHandler throwing = new CallbackHandler(SECRET, request -> {
            throw new IllegalStateException("db down");
        });
        CallbackHandler.Answer answer = throwing.handle(signed(), BODY);
        assertThat(answer.status()).isEqualTo(500);
        assertThat(answer.body()).contains("RETRY").contains("db down");
        assertThat(new CallbackHandler(SECRET, request -> CallbackResult.fail("no such order"))
                        .handle(signed(), BODY)
                        .body())
                .isEqualTo("{\"status\":\"FAIL\",\"message\":\"no such order\"}");
    }

    @Test
    void aHandlerGivenTwoSecretsServesCallbacksSignedWithEither() {
        String next = "fedcba9876543210fedcba9876543210";
        CallbackHandler rotating =
                new CallbackHandler(java.util.List.of(next, SECRET), request -> CallbackResult.success());
        long now = System.currentTimeMillis();
        assertThat(rotating.handle(CallbackSignature.sign(SECRET, now, BODY), BODY)
                        .status())
                .as("signed by the node with the old secret")
                .isEqualTo(200);
        assertThat(rotating.handle(CallbackSignature.sign(next, now, BODY), BODY)
                        .status())
                .as("signed with the new secret")
                .isEqualTo(200);
        assertThat(rotating.handle(CallbackSignature.sign("another-secret-of-32-characters!!", now, BODY), BODY)
                        .status())
                .isEqualTo(401);
    }
}
