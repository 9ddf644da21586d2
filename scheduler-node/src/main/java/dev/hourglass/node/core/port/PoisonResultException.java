package dev.hourglass.node.core.port;

/**
 * A result write failed because of the data (a constraint or a value the database refuses), not
 * because the database is unavailable: writing the same rows again will fail again, so the writer
 * isolates the row instead of retrying the batch.
 */
public class PoisonResultException extends RuntimeException {
    public PoisonResultException(String message, Throwable cause) {
        super(message, cause);
    }
}
