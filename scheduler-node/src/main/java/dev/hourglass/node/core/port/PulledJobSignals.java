package dev.hourglass.node.core.port;

/**
 * Hears of the PULL jobs this node made due (a submit, a retry, a result, a lapsed reservation):
 * the consumers waiting on this node are woken at the job's due time from memory, without a read
 * of the database. Called on API and engine threads: must be quick and not throw.
 */
public interface PulledJobSignals {
    void due(String serviceKey, long dueAt);

    PulledJobSignals NONE = (serviceKey, dueAt) -> {};
}
