package dev.hourglass.node.dispatch;

import dev.hourglass.node.core.port.Delivery;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.port.Dispatcher;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Picks the dispatcher of a service's protocol; a protocol with none configured is an ERROR
 * attempt. With {@link #checkTargets}, a KAFKA topic or DUBBO group its app may no longer use (the
 * admin withdrew the grant after the service was saved) is an ERROR attempt too, decided before
 * anything is sent and said in the attempt's message.
 */
public final class DispatchRouter implements Dispatcher {
    private final Map<Protocol, Dispatcher> byProtocol = new EnumMap<>(Protocol.class);
    private volatile Function<ServiceDefinition, String> refusals = service -> null;

    public DispatchRouter register(Protocol protocol, Dispatcher dispatcher) {
        byProtocol.put(protocol, dispatcher);
        return this;
    }

    /**
     * Checks each delivery first: {@code refusals} says why the service may not send where it
     * says (the apps' delivery targets), or null when it may.
     */
    public DispatchRouter checkTargets(Function<ServiceDefinition, String> refusals) {
        this.refusals = refusals;
        return this;
    }

    public boolean supports(Protocol protocol) {
        return byProtocol.containsKey(protocol);
    }

    @Override
    public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
        Dispatcher d = byProtocol.get(delivery.service().protocol());
        if (d == null) {
            return CompletableFuture.completedFuture(DeliveryResult.error(
                    "no dispatcher for protocol " + delivery.service().protocol()));
        }
        String refused = refusals.apply(delivery.service());
        if (refused != null) {
            // counted against maxAttempts, unlike notDelivered: the refusal lasts until the admin
            // grants the target again, so the job should end FAILED (and be retried by hand then)
            // rather than be tried for ever
            return CompletableFuture.completedFuture(DeliveryResult.error(refused));
        }
        try {
            return d.deliver(delivery);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(DeliveryResult.error(e.toString()));
        }
    }

    @Override
    public void close() {
        byProtocol.values().forEach(Dispatcher::close);
    }
}
