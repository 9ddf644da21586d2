package dev.hourglass.node.manage;

import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.DeadLetters;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.service.FlowControl;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the dead letters of ended jobs (docs/api.md, "Flow control"): the same payload and
 * attributes, submitted to the service's {@code deadLetter} (same app) for now, with the service's
 * defaults, three attributes saying what ended and why, and the bizKey {@code dlq:<id>:<attempt>}.
 * The stores write them in the transaction that ends the job.
 */
public final class DeadLetterOffice implements DeadLetters {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterOffice.class);
    public static final String ATTRIBUTE_OF = "hourglass-dead-letter-of";
    public static final String ATTRIBUTE_ERROR = "hourglass-dead-letter-error";
    public static final String ATTRIBUTE_ATTEMPTS = "hourglass-dead-letter-attempts";
    /** The bizKeys of dead letters: Hourglass's own, refused on submits. */
    public static final String BIZ_KEY_PREFIX = "dlq:";

    private final ServiceLookup services;
    private final JobManager jobs;

    public DeadLetterOffice(ServiceLookup services, JobManager jobs) {
        this.services = services;
        this.jobs = jobs;
    }

    @Override
    public boolean routes(String serviceKey, JobState end) {
        return deadLetterOf(serviceKey).map(d -> d.routes(end)).orElse(false);
    }

    @Override
    public Optional<Job> letterOf(Job ended, long now) {
        if (ended.bizKey() != null && ended.bizKey().startsWith(BIZ_KEY_PREFIX)) {
            // a letter that failed is not sent on: two services made each other's dead letter at
            // the same moment (the checks of the PUT can cross) would otherwise pass letters back
            // and forth for ever
            LOG.warn("job {} is a dead letter that ended {}: not dead-lettered again", ended.id(), ended.state());
            return Optional.empty();
        }
        FlowControl.DeadLetter to = deadLetterOf(ended.serviceKey())
                .filter(d -> d.routes(ended.state()))
                .orElse(null);
        if (to == null) {
            return Optional.empty();
        }
        Map<String, String> own = new LinkedHashMap<>();
        own.put(ATTRIBUTE_OF, Long.toString(ended.id()));
        own.put(ATTRIBUTE_ERROR, ended.lastError() == null ? "" : ended.lastError());
        own.put(ATTRIBUTE_ATTEMPTS, Integer.toString(ended.attempts()));
        try {
            return Optional.of(jobs.jobOf(
                    ended.app(),
                    new JobManager.JobTemplate(to.service(), ended.payload(), ended.attributes(), null, null, null),
                    BIZ_KEY_PREFIX + ended.id() + ":" + ended.attempts(),
                    own,
                    now,
                    now));
        } catch (HourglassException e) { // its dead letter was deleted meanwhile: nowhere to go
            LOG.warn("job {} ended {}: no dead letter: {}", ended.id(), ended.state(), e.getMessage());
            return Optional.empty();
        }
    }

    @Override
    public void stored(List<Job> letters) {
        jobs.admit(letters);
    }

    private Optional<FlowControl.DeadLetter> deadLetterOf(String serviceKey) {
        return services.findByKey(serviceKey).map(s -> s.flow().deadLetter());
    }
}
