package dev.hourglass.node.manage;

import dev.hourglass.api.ExecutionView;
import dev.hourglass.api.JobView;
import dev.hourglass.api.Reservation;
import dev.hourglass.node.core.job.Execution;
import dev.hourglass.node.core.job.Job;
import java.time.Instant;
import java.util.LinkedHashMap;

/** Domain jobs and attempts as the API shows them. */
public final class JobViews {
    private JobViews() {}

    public static JobView of(Job job) {
        return fill(new JobView(), job);
    }

    /** A job a pull consumer reserved: the job, its attempt and the reservation's deadline. */
    public static Reservation reservation(Job job) {
        Reservation r = fill(new Reservation(), job);
        r.setAttempt(job.attempts());
        r.setDeadline(Instant.ofEpochMilli(job.dueAt()));
        return r;
    }

    private static <V extends JobView> V fill(V view, Job job) {
        view.setId(Long.toString(job.id()))
                .setApp(job.app())
                .setService(job.service())
                .setBizKey(job.bizKey())
                .setState(job.state())
                .setFireAt(Instant.ofEpochMilli(job.fireAt()))
                .setCreatedAt(Instant.ofEpochMilli(job.createdAt()))
                .setUpdatedAt(Instant.ofEpochMilli(job.updatedAt()))
                .setAttempts(job.attempts())
                .setMaxAttempts(job.maxAttempts())
                .setTimeoutMs(job.timeoutMs())
                .setExpireAfterMs(job.expireAfterMs())
                .setPayload(job.payload())
                .setAttributes(new LinkedHashMap<>(job.attributes()))
                .setLastError(job.lastError())
                .setShard(job.shard());
        return view;
    }

    public static ExecutionView of(Execution e) {
        return new ExecutionView()
                .setAttempt(e.attempt())
                .setNode(e.node())
                .setFiredAt(Instant.ofEpochMilli(e.firedAt()))
                .setFinishedAt(e.finishedAt() == null ? null : Instant.ofEpochMilli(e.finishedAt()))
                .setLatenessMs(e.latenessMs())
                .setOutcome(e.outcome() == null ? null : e.outcome().name())
                .setMessage(e.message());
    }
}
