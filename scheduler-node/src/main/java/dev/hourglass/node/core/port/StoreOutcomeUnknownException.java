package dev.hourglass.node.core.port;

/**
 * The store may or may not have written the work: the connection went away while its commit was
 * under way, and the outcome could not be read back on a fresh connection either. Never retried
 * (a retry could write it twice, under new ids); the front doors answer it as an error that says
 * so, distinct from UNAVAILABLE, which promises that nothing was written.
 */
public class StoreOutcomeUnknownException extends RuntimeException {
    public StoreOutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
