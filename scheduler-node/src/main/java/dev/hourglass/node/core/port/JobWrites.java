package dev.hourglass.node.core.port;

import dev.hourglass.node.core.job.Job;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Storage port for new jobs: the submit path's only writes. Changes to a stored job go through
 * {@link JobMutations}, attempts through {@link AttemptStore}; reads through {@link JobReads}.
 */
public interface JobWrites {

    /**
     * Inserts a new job. With a bizKey the app already used (live or final), inserts nothing and
     * returns the existing job with {@code created == false}.
     */
    Inserted insert(Job job);

    /**
     * {@link #insert} for many jobs at once, all or nothing: one answer per job, in order, and
     * either every new job is stored or none is (the call then fails).
     */
    List<Inserted> insertAll(List<Job> jobs);

    /**
     * {@link #insertAll}; when a job's id turns out to be taken already, the batch is tried again
     * with {@code freshId} applied to every job (a new id, and what depends on it).
     */
    List<Inserted> insertAll(List<Job> jobs, UnaryOperator<Job> freshId);

    record Inserted(Job job, boolean created) {}
}
