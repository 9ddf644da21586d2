package dev.hourglass.node.dispatch.dubbo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.CallbackResult;
import dev.hourglass.node.dispatch.DeliveryResult;
import dev.hourglass.node.job.AttemptOutcome;
import java.util.concurrent.CompletionException;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.TimeoutException;
import org.apache.dubbo.rpc.RpcException;
import org.junit.jupiter.api.Test;

/** How a Dubbo callback's answer or failure becomes an attempt outcome (SPEC §4). */
class DubboOutcomesTest {
    @Test
    void theCallbacksResultIsTakenAsReturned() {
        assertThat(DubboCallbackDispatcher.interpret(CallbackResult.success()).outcome())
                .isEqualTo(AttemptOutcome.SUCCESS);
        DeliveryResult retry = DubboCallbackDispatcher.interpret(CallbackResult.retryAfter(1_500, "busy"));
        assertThat(retry.outcome()).isEqualTo(AttemptOutcome.RETRY);
        assertThat(retry.retryAfterMs()).isEqualTo(1_500);
        assertThat(retry.message()).isEqualTo("busy");
        assertThat(DubboCallbackDispatcher.interpret(CallbackResult.retryAfter(-1, "odd"))
                        .retryAfterMs())
                .as("a negative hint is ignored")
                .isNull();
        assertThat(DubboCallbackDispatcher.interpret(CallbackResult.fail("gone"))
                        .outcome())
                .isEqualTo(AttemptOutcome.FAIL);
        assertThat(DubboCallbackDispatcher.interpret(null).outcome())
                .as("no result is not a success")
                .isEqualTo(AttemptOutcome.RETRY);
        assertThat(DubboCallbackDispatcher.interpret(new CallbackResult()).outcome())
                .isEqualTo(AttemptOutcome.RETRY);
    }

    @Test
    void aRetryAfterOverThirtyDaysIsClampedAndTheMessageSaysSo() {
        DeliveryResult r = DubboCallbackDispatcher.interpret(CallbackResult.retryAfter(Long.MAX_VALUE, "much later"));
        assertThat(r.outcome()).isEqualTo(AttemptOutcome.RETRY);
        assertThat(r.retryAfterMs()).isEqualTo(java.time.Duration.ofDays(30).toMillis());
        assertThat(r.message()).startsWith("much later").contains("30 days");
        DeliveryResult unnamed = DubboCallbackDispatcher.interpret(CallbackResult.retryAfter(Long.MAX_VALUE, null));
        assertThat(unnamed.message()).contains("30 days");
    }

    @Test
    void failuresAreRetryTimeoutOrError() {
        assertThat(DubboCallbackDispatcher.failure(new CompletionException(new IllegalStateException("db down")))
                        .outcome())
                .as("thrown by the callback")
                .isEqualTo(AttemptOutcome.RETRY);
        assertThat(DubboCallbackDispatcher.failure(new TimeoutException(true, null, "late"))
                        .outcome())
                .isEqualTo(AttemptOutcome.TIMEOUT);
        assertThat(DubboCallbackDispatcher.failure(new RpcException(RpcException.TIMEOUT_EXCEPTION, "late"))
                        .outcome())
                .isEqualTo(AttemptOutcome.TIMEOUT);
        assertThat(DubboCallbackDispatcher.failure(new RpcException(RpcException.FORBIDDEN_EXCEPTION, "no provider"))
                        .outcome())
                .isEqualTo(AttemptOutcome.ERROR);
        assertThat(DubboCallbackDispatcher.failure(
                                new RemotingException((java.net.InetSocketAddress) null, null, "connection reset"))
                        .outcome())
                .isEqualTo(AttemptOutcome.ERROR);
        assertThat(DubboCallbackDispatcher.failure(new RpcException(RpcException.BIZ_EXCEPTION, "thrown"))
                        .outcome())
                .isEqualTo(AttemptOutcome.RETRY);
    }
}
