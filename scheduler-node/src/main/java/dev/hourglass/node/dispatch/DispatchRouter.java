package dev.hourglass.node.dispatch;

import dev.hourglass.node.catalog.Protocol;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Picks the dispatcher of a service's protocol; a protocol with none configured is an ERROR attempt. */
public final class DispatchRouter implements Dispatcher {
    private final Map<Protocol, Dispatcher> byProtocol = new EnumMap<>(Protocol.class);

    public DispatchRouter register(Protocol protocol, Dispatcher dispatcher) {
        byProtocol.put(protocol, dispatcher);
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
