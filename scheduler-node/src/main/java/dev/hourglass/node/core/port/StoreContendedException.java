package dev.hourglass.node.core.port;

/**
 * The database answered, but this work waited on another transaction's locks past a timeout, or
 * was rolled back to break a deadlock: nothing was written, and the same call may succeed later.
 * Unlike an unreachable database, it says nothing of other work: a group of writes that failed
 * this way can be written again item by item, and only the item in conflict fails.
 */
public class StoreContendedException extends StoreUnavailableException {
    public StoreContendedException(String message, Throwable cause) {
        super(message, cause);
    }
}
