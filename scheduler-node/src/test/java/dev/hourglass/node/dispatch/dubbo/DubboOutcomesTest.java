package dev.hourglass.node.dispatch.dubbo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.CallbackResult;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.port.DeliveryResult;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.TimeoutException;
import org.apache.dubbo.rpc.RpcException;
import org.junit.jupiter.api.Test;

/** How a Dubbo callback's answer or failure becomes an attempt outcome (docs/api.md, "Dubbo"). */
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

    /** What RpcContext.asyncCall makes of what the proxy threw synchronously. */
    private static RpcException thrownByTheProxy(RuntimeException e) {
        return new RpcException(new DubboCallbackDispatcher.NotSent(e));
    }

    @Test
    void whatFailedBeforeSendingIsNotDeliveredUnlessItIsATimeout() {
        for (RpcException refusal : List.of(
                new RpcException(RpcException.NO_INVOKER_AVAILABLE_AFTER_FILTER, "No provider available"),
                new RpcException(RpcException.FORBIDDEN_EXCEPTION, "No provider available, forbidden"),
                new RpcException(
                        RpcException.NETWORK_EXCEPTION,
                        "message can not send, because channel is closed",
                        new RemotingException((java.net.InetSocketAddress) null, null, "channel is closed")))) {
            DeliveryResult r = DubboCallbackDispatcher.failure(new CompletionException(thrownByTheProxy(refusal)));
            assertThat(r.outcome()).as(refusal.getMessage()).isEqualTo(AttemptOutcome.ERROR);
            assertThat(r.reachedReceiver()).as(refusal.getMessage()).isFalse();
            assertThat(r.message()).contains(refusal.getMessage());
        }
        DeliveryResult late = DubboCallbackDispatcher.failure(
                thrownByTheProxy(new RpcException(RpcException.TIMEOUT_TERMINATE, "no time left")));
        assertThat(late.outcome()).isEqualTo(AttemptOutcome.TIMEOUT);
        assertThat(late.reachedReceiver())
                .as("a timeout is never 'not delivered'")
                .isTrue();
        DeliveryResult local = DubboCallbackDispatcher.failure(
                thrownByTheProxy(new RpcException(RpcException.BIZ_EXCEPTION, "thrown")));
        assertThat(local.outcome()).isEqualTo(AttemptOutcome.RETRY);
        assertThat(local.reachedReceiver()).isTrue();
        DeliveryResult odd = DubboCallbackDispatcher.failure(thrownByTheProxy(new IllegalStateException("odd")));
        assertThat(odd.outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(odd.reachedReceiver())
                .as("not a refusal of Dubbo's: it counts")
                .isTrue();
    }

    @Test
    void whatFailedAfterSendingReachedTheReceiver() {
        for (Throwable e : List.of(
                new RemotingException((java.net.InetSocketAddress) null, null, "channel inactive"),
                new TimeoutException(true, null, "late"),
                new RpcException(RpcException.NETWORK_EXCEPTION, "connection lost"),
                new RpcException(RpcException.BIZ_EXCEPTION, "thrown"),
                new IllegalStateException("db down"))) {
            assertThat(DubboCallbackDispatcher.failure(new CompletionException(e))
                            .reachedReceiver())
                    .as(e.toString())
                    .isTrue();
        }
    }
}
