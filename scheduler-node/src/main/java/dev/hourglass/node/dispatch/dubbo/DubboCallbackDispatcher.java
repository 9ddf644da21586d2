package dev.hourglass.node.dispatch.dubbo;

import dev.hourglass.api.CallbackRequest;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.JobCallbackService;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.TraceContext;
import dev.hourglass.node.core.port.Delivery;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.port.Dispatcher;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.dubbo.DubboRuntime;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.TimeoutException;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.RpcContextAttachment;
import org.apache.dubbo.rpc.RpcException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers jobs of DUBBO services (docs/api.md, "Dubbo") by calling the business's {@link
 * JobCallbackService}, asynchronously: a slow receiver holds no node thread, only one of its
 * service's {@code maxInFlight} slots (the engine's gate).
 *
 * <p>One reference per service, made on first use and kept; a service whose group, version or url
 * changed gets a new one and the old one is destroyed, as are those of deleted services
 * ({@link #retainOnly}). The job's own {@code timeoutMs} bounds each call; Dubbo never retries
 * by itself (the service's retry policy does).
 *
 * <p>Outcomes: the {@link CallbackResult} as returned (a retryAfterMs over 30 days clamped to 30
 * days, {@link DeliveryResult#retry}); an exception thrown by the callback is a
 * RETRY, no answer in time a TIMEOUT, no provider or a broken connection an ERROR (all retried).
 * An ERROR is {@linkplain DeliveryResult#notDelivered not delivered} (the retry policy does not
 * count it) only when Dubbo failed before the request was handed to the connection: no provider
 * available, no connection, or the connection closed before the write. In asynchronous mode Dubbo
 * throws exactly those failures from the proxy call itself; everything after the send (a
 * connection lost while waiting, a timeout, the callback's exception) completes the call's future.
 */
public final class DubboCallbackDispatcher implements Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(DubboCallbackDispatcher.class);

    private final DubboRuntime dubbo;
    private final Map<String, Cached> references = new ConcurrentHashMap<>();

    private record Target(String group, String version, String url) {
        static Target of(ServiceDefinition s) {
            return new Target(s.dubboGroup(), s.dubboVersion(), s.url());
        }
    }

    private record Cached(Target target, ReferenceConfig<JobCallbackService> config, JobCallbackService proxy) {}

    public DubboCallbackDispatcher(DubboRuntime dubbo) {
        this.dubbo = dubbo;
    }

    @Override
    public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
        ServiceDefinition service = delivery.service();
        JobCallbackService callback = referenceOf(service);
        CallbackRequest request = request(delivery);
        RpcContextAttachment attachments = RpcContext.getClientAttachment();
        attachments.setAttachment("timeout", Long.toString(delivery.job().timeoutMs()));
        // the submit's trace context, under the W3C names a provider's tracing reads; removed
        // for a job without one, so no earlier call's context can go with it
        Map<String, String> trace = TraceContext.of(delivery.job().attributes()).headers();
        for (String name : List.of(TraceContext.TRACEPARENT, TraceContext.TRACESTATE)) {
            if (trace.containsKey(name)) {
                attachments.setAttachment(name, trace.get(name));
            } else {
                attachments.removeAttachment(name);
            }
        }
        CompletableFuture<CallbackResult> call = RpcContext.getServiceContext().asyncCall(() -> {
            try {
                return callback.execute(request);
            } catch (RuntimeException thrownBeforeSending) {
                throw new NotSent(thrownBeforeSending);
            }
        });
        return call.handle((result, error) -> error == null ? interpret(result) : failure(error));
    }

    /**
     * Marks what the proxy threw synchronously: in asynchronous mode that is a failure before the
     * request reached the connection (the cluster found no provider, or the send itself failed).
     */
    static final class NotSent extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotSent(RuntimeException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    private JobCallbackService referenceOf(ServiceDefinition service) {
        Target target = Target.of(service);
        Cached cached = references.get(service.key());
        if (cached != null && cached.target().equals(target)) {
            return cached.proxy();
        }
        return references
                .compute(service.key(), (key, old) -> {
                    if (old != null && old.target().equals(target)) {
                        return old;
                    }
                    if (old != null) {
                        destroy(key, old);
                    }
                    ReferenceConfig<JobCallbackService> config = dubbo.reference(
                            JobCallbackService.class, target.group(), target.version(), target.url(), (int)
                                    Math.min(Integer.MAX_VALUE, service.timeoutMs()));
                    return new Cached(target, config, config.get());
                })
                .proxy();
    }

    /**
     * Destroys the references of services that no longer exist or now name another provider
     * (services by key {@code app/name}); a changed service gets its new reference on next use.
     */
    public void retainOnly(Map<String, ServiceDefinition> services) {
        references.forEach((key, cached) -> {
            ServiceDefinition now = services.get(key);
            boolean current = now != null
                    && now.protocol() == Protocol.DUBBO
                    && Target.of(now).equals(cached.target());
            if (!current && references.remove(key, cached)) {
                destroy(key, cached);
            }
        });
    }

    /** How many service references are open (for tests and the status page). */
    public int openReferences() {
        return references.size();
    }

    @Override
    public void close() {
        references.forEach((key, cached) -> destroy(key, cached));
        references.clear();
    }

    private static void destroy(String key, Cached cached) {
        try {
            cached.config().destroy();
        } catch (RuntimeException e) {
            LOG.debug("destroying the Dubbo reference of {}: {}", key, e.toString());
        }
    }

    static CallbackRequest request(Delivery delivery) {
        Job job = delivery.job();
        CallbackRequest request = new CallbackRequest();
        request.setJobId(Long.toString(job.id()));
        request.setApp(job.app());
        request.setService(job.service());
        request.setBizKey(job.bizKey());
        request.setAttempt(delivery.attempt());
        request.setMaxAttempts(job.maxAttempts());
        request.setFireAt(Instant.ofEpochMilli(job.fireAt()));
        request.setFiredAt(Instant.ofEpochMilli(delivery.firedAt()));
        request.setPayload(job.payload());
        request.setAttributes(new LinkedHashMap<>(job.attributes()));
        return request;
    }

    static DeliveryResult interpret(CallbackResult result) {
        if (result == null || result.getStatus() == null) {
            return new DeliveryResult(AttemptOutcome.RETRY, null, "the callback returned no status");
        }
        return switch (result.getStatus()) {
            case SUCCESS -> DeliveryResult.success(result.getMessage());
            case RETRY -> DeliveryResult.retry(result.getRetryAfterMs(), result.getMessage());
            case FAIL -> new DeliveryResult(AttemptOutcome.FAIL, null, result.getMessage());
            // a pushed attempt was used by being called: giving it back is a retry
            case RELEASE -> DeliveryResult.retry(result.getRetryAfterMs(), result.getMessage());
        };
    }

    static DeliveryResult failure(Throwable error) {
        Throwable cause = error;
        while (cause.getCause() != null
                && (cause instanceof CompletionException
                        || cause instanceof ExecutionException
                        // RpcContext.asyncCall wraps what the proxy threw in an RpcException of its own
                        || (cause instanceof RpcException wrapper
                                && wrapper.getCode() == RpcException.UNKNOWN_EXCEPTION
                                && cause.getCause() instanceof NotSent))) {
            cause = cause.getCause();
        }
        if (cause instanceof NotSent notSent) {
            return failedBeforeSending(notSent.getCause());
        }
        // an asynchronous call fails with the transport's own exceptions, not wrapped in RpcException
        if (cause instanceof TimeoutException) {
            return timeout();
        }
        if (cause instanceof RemotingException remoting) {
            return DeliveryResult.error("Dubbo: " + remoting.getMessage());
        }
        if (cause instanceof RpcException rpc) {
            if (rpc.isTimeout()) {
                return timeout();
            }
            if (rpc.isBiz()) {
                return new DeliveryResult(AttemptOutcome.RETRY, null, "the callback threw: " + rpc.getMessage());
            }
            return DeliveryResult.error("Dubbo: " + rpc.getMessage());
        }
        // an exception thrown by the business's callback (docs/api.md, "Dubbo": it counts as RETRY)
        return new DeliveryResult(AttemptOutcome.RETRY, null, "the callback threw: " + cause);
    }

    /**
     * What the proxy threw before sending: no provider ({@code NO_INVOKER_AVAILABLE_AFTER_FILTER},
     * {@code FORBIDDEN}), a send that failed ({@code NETWORK_EXCEPTION}: not connected, connect
     * refused, channel closed) or any other Dubbo refusal. A timeout stays a TIMEOUT, whatever its
     * moment, and a business exception (a local call) a RETRY.
     */
    private static DeliveryResult failedBeforeSending(Throwable thrown) {
        if (thrown instanceof RpcException rpc) {
            if (rpc.isTimeout() || rpc.getCode() == RpcException.TIMEOUT_TERMINATE) {
                return timeout();
            }
            if (rpc.isBiz()) {
                return new DeliveryResult(AttemptOutcome.RETRY, null, "the callback threw: " + rpc.getMessage());
            }
            return DeliveryResult.notDelivered("Dubbo, not sent: " + rpc.getMessage());
        }
        // not Dubbo's refusal: nothing says what happened, so it counts
        return DeliveryResult.error("Dubbo: " + thrown);
    }

    private static DeliveryResult timeout() {
        return new DeliveryResult(AttemptOutcome.TIMEOUT, null, "no answer within the timeout");
    }
}
