package dev.hourglass.node.core.port;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import java.util.List;
import java.util.Optional;

/**
 * Where the stores get the dead letters of the jobs they end (docs/api.md, "Flow control"): a job
 * of a service with a {@code deadLetter} that ends FAILED (or EXPIRED, if the service says so) is
 * submitted to that service in the transaction that ends it, once — the transaction that ends a
 * job can commit only once, and the letter's bizKey {@code dlq:<job id>:<attempt>} is taken in it.
 */
public interface DeadLetters {
    /** Whether a job of the service that ends in {@code end} gets a dead letter: from memory, asked often. */
    boolean routes(String serviceKey, JobState end);

    /**
     * The dead letter of a job that has just ended (as its transaction sees it), not stored: empty
     * if it gets none after all (its service's dead letter is gone meanwhile).
     */
    Optional<Job> letterOf(Job ended, long now);

    /** Dead letters whose transactions committed: into the memory of whoever fires them. */
    void stored(List<Job> letters);

    DeadLetters NONE = new DeadLetters() {
        @Override
        public boolean routes(String serviceKey, JobState end) {
            return false;
        }

        @Override
        public Optional<Job> letterOf(Job ended, long now) {
            return Optional.empty();
        }

        @Override
        public void stored(List<Job> letters) {}
    };
}
