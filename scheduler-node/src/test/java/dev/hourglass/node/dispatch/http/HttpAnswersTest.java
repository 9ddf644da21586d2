package dev.hourglass.node.dispatch.http;

import static org.assertj.core.api.Assertions.assertThat;

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
}
