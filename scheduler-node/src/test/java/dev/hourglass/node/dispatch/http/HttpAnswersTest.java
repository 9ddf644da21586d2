package dev.hourglass.node.dispatch.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.port.DeliveryResult;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class HttpAnswersTest {
    private static final long THIRTY_DAYS_MS = Duration.ofDays(30).toMillis();
    private static final long NOW = Instant.parse("2026-11-21T15:30:00Z").toEpochMilli();

    @Test
    void retryAfterIsSecondsOrAnHttpDate() {
        assertThat(HttpCallbackDispatcher.retryAfterMs("3", NOW)).isEqualTo(3_000);
        assertThat(HttpCallbackDispatcher.retryAfterMs("-3", NOW)).isEqualTo(0);
        assertThat(HttpCallbackDispatcher.retryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT", NOW))
                .isEqualTo(0);
        assertThat(HttpCallbackDispatcher.retryAfterMs("soon", NOW)).isNull();
        assertThat(HttpCallbackDispatcher.retryAfterMs("1e30", NOW)).isNull();
        assertThat(HttpCallbackDispatcher.retryAfterMs("Sat, 21 Nov 2026 15:30:05 GMT", NOW))
                .as("a date counts from now")
                .isEqualTo(5_000);
    }

    @Test
    void aHugeRetryAfterHeaderSaturatesInsteadOfWrapping() {
        assertThat(HttpCallbackDispatcher.retryAfterMs(Long.toString(Long.MAX_VALUE), NOW))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(HttpCallbackDispatcher.retryAfterMs("99999999999999999999", NOW))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(HttpCallbackDispatcher.retryAfterMs("Fri, 31 Dec 9999 23:59:59 GMT", NOW))
                .isGreaterThan(THIRTY_DAYS_MS);
    }

    @Test
    void aRetryAfterHeaderOverThirtyDaysIsClampedAndTheMessageSaysSo() {
        for (String header : new String[] {
            Long.toString(Long.MAX_VALUE), "99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT", "2592001"
        }) {
            DeliveryResult r = HttpCallbackDispatcher.interpret(429, header, "", NOW);
            assertThat(r.outcome()).isEqualTo(AttemptOutcome.RETRY);
            assertThat(r.retryAfterMs()).as(header).isEqualTo(THIRTY_DAYS_MS);
            assertThat(r.message()).as(header).startsWith("HTTP 429").contains("30 days");
        }
        DeliveryResult inRange = HttpCallbackDispatcher.interpret(503, "2592000", "", NOW);
        assertThat(inRange.retryAfterMs()).isEqualTo(THIRTY_DAYS_MS);
        assertThat(inRange.message()).isEqualTo("HTTP 503");
    }

    @Test
    void aRetryAfterMsInTheBodyOverThirtyDaysIsClampedAndTheMessageSaysSo() {
        for (String n : new String[] {Long.toString(Long.MAX_VALUE), "99999999999999999999", "1e30"}) {
            DeliveryResult r = HttpCallbackDispatcher.interpret(
                    200, null, "{\"status\":\"RETRY\",\"retryAfterMs\":" + n + ",\"message\":\"busy\"}", NOW);
            assertThat(r.outcome()).isEqualTo(AttemptOutcome.RETRY);
            assertThat(r.retryAfterMs()).as(n).isEqualTo(THIRTY_DAYS_MS);
            assertThat(r.message()).as(n).startsWith("busy").contains("30 days");
        }
        DeliveryResult negative =
                HttpCallbackDispatcher.interpret(200, null, "{\"status\":\"RETRY\",\"retryAfterMs\":-5}", NOW);
        assertThat(negative.retryAfterMs()).as("a negative hint is ignored").isNull();
        DeliveryResult normal =
                HttpCallbackDispatcher.interpret(200, null, "{\"status\":\"RETRY\",\"retryAfterMs\":700}", NOW);
        assertThat(normal.retryAfterMs()).isEqualTo(700);
        assertThat(normal.message()).isNull();
    }

    @Test
    void aFailureBeforeTheRequestBeganIsNotDeliveredUnlessItIsATimeout() {
        DeliveryResult refused = HttpCallbackDispatcher.failure(new ConnectException("Connection refused"), false);
        assertThat(refused.outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(refused.reachedReceiver()).isFalse();
        assertThat(refused.message()).contains("Connection refused");
        assertThat(HttpCallbackDispatcher.failure(new SocketTimeoutException("Connect Timeout"), false)
                        .reachedReceiver())
                .isFalse();
        DeliveryResult queuedTooLong = HttpCallbackDispatcher.failure(new TimeoutException("Total timeout"), false);
        assertThat(queuedTooLong.outcome()).isEqualTo(AttemptOutcome.TIMEOUT);
        assertThat(queuedTooLong.reachedReceiver()).isTrue();
    }

    @Test
    void aFailureAfterTheRequestBeganCounts() {
        for (Throwable e : List.of(new EOFException("reset"), new IOException("Connection reset by peer"))) {
            DeliveryResult r = HttpCallbackDispatcher.failure(e, true);
            assertThat(r.outcome()).isEqualTo(AttemptOutcome.ERROR);
            assertThat(r.reachedReceiver()).as(e.toString()).isTrue();
        }
        assertThat(HttpCallbackDispatcher.failure(new TimeoutException("Total timeout"), true)
                        .outcome())
                .isEqualTo(AttemptOutcome.TIMEOUT);
    }
}
