package dev.hourglass.node.core.port;

import java.util.concurrent.CompletionStage;

/**
 * Delivers one attempt over one protocol. Contract: never blocks the caller; the stage always
 * completes (normally), within the job's timeout plus a small margin, with TIMEOUT when the
 * receiver did not answer in time and ERROR when it could not be reached.
 */
public interface Dispatcher {
    CompletionStage<DeliveryResult> deliver(Delivery delivery);

    /** Releases connections and threads. */
    default void close() {}
}
