package dev.hourglass.node.dispatch.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.dispatch.DeliveryResult;
import dev.hourglass.node.job.AttemptOutcome;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class HttpAnswersTest {
    @Test
    void retryAfterIsSecondsOrAnHttpDate() {
        assertThat(HttpCallbackDispatcher.retryAfterMs("3")).isEqualTo(3_000);
        assertThat(HttpCallbackDispatcher.retryAfterMs("-3")).isEqualTo(0);
        assertThat(HttpCallbackDispatcher.retryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT"))
                .isEqualTo(0);
        assertThat(HttpCallbackDispatcher.retryAfterMs("soon")).isNull();
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
