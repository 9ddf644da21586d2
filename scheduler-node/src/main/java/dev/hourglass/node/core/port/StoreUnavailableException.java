package dev.hourglass.node.core.port;

/**
 * The store cannot be reached or cannot take the work now (connection lost, pool exhausted, a lock
 * or transaction that timed out or was rolled back): nothing was written, and the same call may
 * succeed later. Thrown by the storage adapters; the front doors answer it as UNAVAILABLE (503).
 */
public class StoreUnavailableException extends RuntimeException {
    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
