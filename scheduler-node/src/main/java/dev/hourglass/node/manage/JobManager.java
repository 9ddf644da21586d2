package dev.hourglass.node.manage;

import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobChange;
import dev.hourglass.api.JobState;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.ResultReport;
import dev.hourglass.node.core.job.AttemptEndings;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Execution;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.job.JobIdGenerator;
import dev.hourglass.node.core.job.JobPage;
import dev.hourglass.node.core.job.JobQuery;
import dev.hourglass.node.core.job.Names;
import dev.hourglass.node.core.job.Times;
import dev.hourglass.node.core.job.TraceContext;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.core.port.FiringControl;
import dev.hourglass.node.core.port.JobMutations;
import dev.hourglass.node.core.port.JobReads;
import dev.hourglass.node.core.port.JobWrites;
import dev.hourglass.node.core.port.ServiceLookup;
import dev.hourglass.node.core.port.StoreOutcomeUnknownException;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.PullLimits;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.core.shard.ShardOwnership;
import dev.hourglass.node.core.shard.ShardPlacement;
import dev.hourglass.node.tenant.Caller;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job operations of the API, the same for HTTP and Dubbo: validates input (a bad input is a
 * typed error and writes nothing), stores, and tells the firing engine about jobs that became due
 * soon so they fire on time. Thread-safe.
 */
public final class JobManager {
    private static final Logger LOG = LoggerFactory.getLogger(JobManager.class);
    private final JobReads jobs;
    private final JobWrites inserts;
    private final JobMutations mutations;
    private final ServiceLookup catalog;
    private final FiringControl engine;
    private final ShardPlacement placement;
    private final ShardOwnership shards;
    private final JobIdGenerator ids;
    private final Limits limits;
    private final JobInputs inputs;
    private final Clock clock;
    private final GroupCommit<Job, JobWrites.Inserted> submits;
    private final GroupCommit<List<AttemptResult>, Set<Long>> resultWrites;
    /** Batches of results this large or larger are written alone (see {@link #recordResults}). */
    private final int resultsAloneFrom;

    private final AttemptHolders holders;

    public JobManager(
            JobReads jobs,
            JobWrites inserts,
            JobMutations mutations,
            ServiceLookup catalog,
            FiringControl engine,
            ShardPlacement placement,
            ShardOwnership shards,
            JobIdGenerator ids,
            Limits limits,
            GroupCommit.Settings groupCommit,
            GroupCommit.Settings resultGroups,
            int resultsAloneFrom,
            AttemptHolders holders,
            Clock clock) {
        this.holders = holders;
        this.jobs = jobs;
        this.inserts = inserts;
        this.mutations = mutations;
        this.catalog = catalog;
        this.engine = engine;
        this.placement = placement;
        this.shards = shards;
        this.ids = ids;
        this.limits = limits;
        this.inputs = new JobInputs(limits);
        this.clock = clock;
        this.submits = GroupCommit.ofSubmits(batch -> inserts.insertAll(batch, this::withFreshId), groupCommit);
        this.resultsAloneFrom = resultsAloneFrom;
        this.resultWrites = GroupCommit.ofResults(
                this::recordTogether,
                batch -> batch.stream().map(AttemptResult::jobId).toList(),
                resultGroups);
    }

    /** Starts the group writers: single submits and consumers' results are written in groups from now on. */
    public void start() {
        submits.start();
        resultWrites.start();
    }

    /** Writes the single submits and results queued now, then writes the ones that come later alone. */
    public void close() {
        GroupCommit.closeAll(800, List.of(resultWrites, submits)); // within the 1 s of its stop step
    }

    public Limits limits() {
        return limits;
    }

    /**
     * Submits one job; with a bizKey the app already used, returns that job and {@code created ==
     * false}. {@code trace} is the submit's trace context, kept with a new job for its deliveries.
     */
    public JobWrites.Inserted submit(String app, JobSubmission submission, TraceContext trace) {
        return store(newJob(app, submission, Objects.requireNonNullElse(trace, TraceContext.NONE), clock.millis()));
    }

    /**
     * Not UNAVAILABLE, which tells a client that nothing was stored and it may send the job again:
     * this one may be stored (docs/api.md, "Errors").
     */
    private static HourglassException outcomeUnknown(StoreOutcomeUnknownException e) {
        LOG.error("submit outcome unknown: {}", e.getMessage());
        return new HourglassException(
                ErrorCode.INTERNAL,
                "the database went away while the job was being stored and did not come back to say whether it"
                        + " was: look it up by its bizKey before sending it again");
    }

    /** One answer of a batch submit: the job (new or, for a known bizKey, existing) or its error. */
    public record BatchOutcome(Job job, HourglassException error) {}

    /**
     * Submits up to {@link Limits#maxBatch()} jobs; a bad one gets its error and the others go in.
     * Answers one outcome per item, in order.
     *
     * @param inputErrors per item, the error an adapter found reading it (its submission is then
     *     ignored), or null; the list itself may be null when there were none
     * @param trace the trace context of the batch's request, kept with each of its new jobs
     */
    public List<BatchOutcome> submitBatch(
            String app, List<JobSubmission> submissions, List<HourglassException> inputErrors, TraceContext trace) {
        if (submissions == null || submissions.isEmpty()) {
            throw HourglassException.invalid("jobs", "jobs must be a non-empty list");
        }
        if (submissions.size() > limits.maxBatch()) {
            throw HourglassException.invalid("jobs", "at most " + limits.maxBatch() + " jobs per batch");
        }
        long now = clock.millis();
        BatchOutcome[] results = new BatchOutcome[submissions.size()];
        List<Job> valid = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < submissions.size(); i++) {
            HourglassException inputError = inputErrors == null ? null : inputErrors.get(i);
            if (inputError != null) {
                results[i] = new BatchOutcome(null, inputError);
                continue;
            }
            try {
                valid.add(newJob(app, submissions.get(i), Objects.requireNonNullElse(trace, TraceContext.NONE), now));
                positions.add(i);
            } catch (HourglassException e) {
                results[i] = new BatchOutcome(null, e);
            }
        }
        List<JobWrites.Inserted> inserted;
        try {
            inserted = inserts.insertAll(valid, this::withFreshId);
        } catch (StoreOutcomeUnknownException e) {
            throw outcomeUnknown(e);
        }
        for (int k = 0; k < inserted.size(); k++) {
            JobWrites.Inserted in = inserted.get(k);
            if (in.created()) {
                engine.admit(in.job());
            }
            results[positions.get(k)] = new BatchOutcome(in.job(), null);
        }
        return List.of(results);
    }

    /**
     * The fields every job of a schedule gets, checked as a submit's are when the schedule is put, so
     * a bad one is a 400 then and not a failure at each occurrence. {@code reservedAttributes} are
     * left of the attribute limit for the attributes Hourglass adds.
     */
    public record JobTemplate(
            String service,
            String payload,
            Map<String, String> attributes,
            Integer maxAttempts,
            Long timeoutMs,
            Long expireAfterMs) {}

    public JobTemplate checkTemplate(String app, JobTemplate t, int reservedAttributes) {
        if (t.service() == null) {
            throw HourglassException.invalid("service", "service is required");
        }
        ServiceDefinition service = catalog.find(app, t.service())
                .orElseThrow(() -> HourglassException.invalid("service", "unknown service: " + t.service()));
        inputs.maxAttempts(t.maxAttempts(), service.maxAttempts());
        inputs.timeoutMs(t.timeoutMs(), service.timeoutMs());
        inputs.expireAfterMs(t.expireAfterMs());
        return new JobTemplate(
                service.name(),
                payload(t.payload()),
                attributes(t.attributes(), Math.max(0, limits.maxAttributes() - reservedAttributes)),
                t.maxAttempts(),
                t.timeoutMs(),
                t.expireAfterMs());
    }

    /**
     * A new job of a checked template, with Hourglass's own bizKey and attributes added, placed as a
     * submit's; not stored (the schedule's pass stores it, see {@link #admit}).
     *
     * @throws HourglassException its service is gone or changed so that the template no longer fits
     */
    public Job jobOf(
            String app, JobTemplate t, String bizKey, Map<String, String> ownAttributes, long fireAt, long now) {
        ServiceDefinition service = catalog.find(app, t.service())
                .orElseThrow(() -> HourglassException.invalid("service", "unknown service: " + t.service()));
        Map<String, String> attributes = new LinkedHashMap<>(t.attributes());
        attributes.putAll(ownAttributes);
        JobTemplate resolved = new JobTemplate(
                service.name(),
                t.payload(),
                attributes,
                inputs.maxAttempts(t.maxAttempts(), service.maxAttempts()),
                inputs.timeoutMs(t.timeoutMs(), service.timeoutMs()),
                t.expireAfterMs());
        return build(app, resolved, bizKey, fireAt, now);
    }

    /** Stores a job made by {@link #jobOf} as a submit is stored (with a known bizKey: the job that has it). */
    public JobWrites.Inserted store(Job job) {
        JobWrites.Inserted inserted;
        try {
            inserted = submits.write(job); // with the other submits of the moment
        } catch (StoreOutcomeUnknownException e) {
            throw outcomeUnknown(e);
        }
        if (inserted.created()) {
            engine.admit(inserted.job());
        }
        return inserted;
    }

    /** Jobs stored by another path than a submit (a schedule's pass): into this node's memory if near. */
    public void admit(List<Job> stored) {
        stored.forEach(engine::admit);
    }

    private Job newJob(String app, JobSubmission s, TraceContext trace, long now) {
        if (s == null) {
            throw HourglassException.invalid(null, "a job is required");
        }
        if (s.getService() == null) {
            throw HourglassException.invalid("service", "service is required");
        }
        ServiceDefinition service = catalog.find(app, s.getService())
                .orElseThrow(() -> HourglassException.invalid("service", "unknown service: " + s.getService()));
        long fireAt = inputs.fireTime(s.getFireAt(), s.getDelayMs(), now, true);
        String payload = payload(s.getPayload());
        Map<String, String> attributes = attributes(s.getAttributes());
        if (trace.isPresent()) { // Hourglass's own attributes: not counted in the client's limit
            attributes = new LinkedHashMap<>(attributes);
            attributes.putAll(trace.attributes());
        }
        String bizKey = Names.requireClientBizKey(s.getBizKey());
        int maxAttempts = inputs.maxAttempts(s.getMaxAttempts(), service.maxAttempts());
        long timeoutMs = inputs.timeoutMs(s.getTimeoutMs(), service.timeoutMs());
        Long expireAfterMs = inputs.expireAfterMs(s.getExpireAfterMs());
        return build(
                app,
                new JobTemplate(service.name(), payload, attributes, maxAttempts, timeoutMs, expireAfterMs),
                bizKey,
                fireAt,
                now);
    }

    /**
     * A new DELAYED job of {@code app}, placed as a submit's: the one builder of submitted jobs and
     * of schedules' jobs. Every field of {@code t} is resolved (no default left to apply).
     */
    private Job build(String app, JobTemplate t, String bizKey, long fireAt, long now) {
        long id = ids.next();
        int shard = placement.place(id, engine.isWithinLoadedWindow(fireAt), shards.current());
        return Job.builder()
                .id(id)
                .app(app)
                .service(t.service())
                .bizKey(bizKey)
                .shard(shard)
                .state(JobState.DELAYED)
                .fireAt(fireAt)
                .dueAt(fireAt)
                .expireAt(t.expireAfterMs() == null ? null : Times.plus(fireAt, t.expireAfterMs()))
                .maxAttempts(t.maxAttempts())
                .timeoutMs(t.timeoutMs())
                .expireAfterMs(t.expireAfterMs())
                .payload(t.payload())
                .attributes(t.attributes())
                .createdAt(now)
                .updatedAt(now)
                .build();
    }

    /** The same job under a new id (its id was taken), placed again: the shard rule hashes the id. */
    private Job withFreshId(Job job) {
        long id = ids.next();
        int shard = placement.place(id, engine.isWithinLoadedWindow(job.dueAt()), shards.current());
        return job.toBuilder().id(id).shard(shard).build();
    }

    private String payload(String payload) {
        String text = payload == null ? "null" : payload;
        if (text.length() > limits.maxPayloadBytes() / 4
                && text.getBytes(StandardCharsets.UTF_8).length > limits.maxPayloadBytes()) {
            throw new HourglassException(
                    ErrorCode.PAYLOAD_TOO_LARGE, "payload is over " + limits.maxPayloadBytes() + " bytes", "payload");
        }
        return text;
    }

    private Map<String, String> attributes(Map<String, String> attributes) {
        return attributes(attributes, limits.maxAttributes());
    }

    /** A client's attributes: at most {@code max}, none named {@code hourglass-…} (Hourglass's own). */
    private static Map<String, String> attributes(Map<String, String> attributes, int max) {
        if (attributes == null) {
            return Map.of();
        }
        if (attributes.size() > max) {
            throw HourglassException.invalid("attributes", "at most " + max + " attributes");
        }
        for (Map.Entry<String, String> a : attributes.entrySet()) {
            if (a.getKey() == null || !a.getKey().matches("[A-Za-z0-9._-]{1,64}")) {
                throw HourglassException.invalid(
                        "attributes", "attribute names are 1..64 characters of [A-Za-z0-9._-]");
            }
            if (a.getKey().startsWith(Names.RESERVED_ATTRIBUTE_PREFIX)) {
                throw HourglassException.invalid(
                        "attributes",
                        "attribute names starting with " + Names.RESERVED_ATTRIBUTE_PREFIX + " are Hourglass's own");
            }
            if (a.getValue() == null || a.getValue().length() > 1024) {
                throw HourglassException.invalid(
                        "attributes", "attribute values are strings of at most 1024 characters");
            }
        }
        return new LinkedHashMap<>(attributes);
    }

    public Job get(Caller caller, long id) {
        return jobs.find(id)
                .filter(j -> caller.scope() == null || j.app().equals(caller.scope()))
                .orElseThrow(() -> HourglassException.notFound("job " + id + " not found"));
    }

    public Job getByBizKey(String app, String bizKey) {
        Names.requireBizKey(bizKey);
        return jobs.findByBizKey(app, bizKey)
                .orElseThrow(() -> HourglassException.notFound("no job with bizKey " + bizKey));
    }

    public JobPage search(JobQuery query) {
        return jobs.search(query);
    }

    public List<Execution> executions(Caller caller, long id) {
        get(caller, id);
        return jobs.executions(id);
    }

    public Job reschedule(Caller caller, long id, JobChange change) {
        long now = clock.millis();
        Long fireAt = inputs.fireTime(change.getFireAt(), change.getDelayMs(), now, false);
        String payload = change.getPayload() == null ? null : payload(change.getPayload());
        Map<String, String> attributes =
                change.getAttributes() == null ? null : withOwnAttributes(id, attributes(change.getAttributes()));
        Job job = mutations
                .reschedule(id, caller.scope(), fireAt, nearShard(id, fireAt), payload, attributes, now)
                .orElseThrow(() -> notChangeable(caller, id, "rescheduled"));
        engine.forget(id);
        engine.admit(job);
        return job;
    }

    /**
     * A client's new attributes, and Hourglass's own the job has (its trace context, its schedule,
     * what it is the dead letter of): they are set once, when the job is made, and a reschedule
     * replaces only the client's (docs/api.md, "Jobs").
     */
    private Map<String, String> withOwnAttributes(long id, Map<String, String> clients) {
        Map<String, String> all = new LinkedHashMap<>(clients);
        jobs.find(id).ifPresent(job -> job.attributes().forEach((name, value) -> {
            if (name.startsWith(Names.RESERVED_ATTRIBUTE_PREFIX)) {
                all.put(name, value);
            }
        }));
        return all;
    }

    public Job cancel(Caller caller, long id) {
        Job job = mutations
                .cancel(id, caller.scope(), clock::millis, holders)
                .orElseThrow(() -> notChangeable(caller, id, "canceled"));
        engine.forget(id);
        return job;
    }

    /**
     * A 409 while the job's service is paused: a fire now is a new attempt, and a pause starts none
     * (the job keeps its place and fires after the resume).
     */
    public Job fireNow(Caller caller, long id) {
        Job current = get(caller, id);
        // as stored, not as this node remembers it: a pause through another node a moment ago counts
        if (catalog.findStored(current.app(), current.service())
                .map(ServiceDefinition::paused)
                .orElse(false)) {
            throw HourglassException.conflict(
                    "service " + current.service() + " is paused: resume it to fire its jobs");
        }
        long now = clock.millis();
        Job job = mutations
                .reschedule(id, caller.scope(), now, nearShard(id, now), null, null, now)
                .orElseThrow(() -> notChangeable(caller, id, "fired now"));
        engine.admit(job);
        return job;
    }

    /** Manual retry: a FAILED, CANCELED or EXPIRED job back to DELAYED with a fresh budget. */
    public Job retry(Caller caller, long id, Instant fireAt, Long delayMs) {
        long now = clock.millis();
        Long at = inputs.fireTime(fireAt, delayMs, now, false);
        long due = at == null ? now : at;
        int shard = placement.place(id, engine.isWithinLoadedWindow(due), shards.current());
        Job job = mutations
                .revive(id, caller.scope(), due, shard, now)
                .orElseThrow(() -> notChangeable(caller, id, "retried"));
        engine.admit(job);
        return job;
    }

    /**
     * The consumer's result for the current attempt (asynchronous acknowledgement; a pull
     * consumer's reservation): CONFLICT unless the attempt is current when the result is written.
     */
    public Job reportResult(Caller caller, long id, ResultReport report) {
        checkReport(report); // bad input is refused whatever the job
        Job job = get(caller, id);
        AttemptResult result = reported(job, report, clock.millis());
        if (!recordResults(List.of(result)).contains(id)) {
            throw notCurrent(id, report.getAttempt(), get(caller, id));
        }
        return get(caller, id);
    }

    /**
     * Writes a caller's results: a small batch (a consumer acknowledging job by job) with the other
     * small ones of the moment, in one transaction; a larger one alone on this thread, side by side
     * with the others (docs/design.md, "Group commit of results"). The jobs it ended.
     */
    private Set<Long> recordResults(List<AttemptResult> batch) {
        return batch.size() >= resultsAloneFrom ? engine.recordReported(batch) : resultWrites.write(batch);
    }

    /**
     * Batches of results of different callers in one transaction (no two name the same job): the
     * jobs each batch ended.
     */
    private List<Set<Long>> recordTogether(List<List<AttemptResult>> batches) {
        List<AttemptResult> all = new ArrayList<>();
        batches.forEach(all::addAll);
        Set<Long> ended = engine.recordReported(all);
        List<Set<Long>> answers = new ArrayList<>(batches.size());
        for (List<AttemptResult> batch : batches) {
            Set<Long> own = new HashSet<>();
            batch.forEach(r -> {
                if (ended.contains(r.jobId())) {
                    own.add(r.jobId());
                }
            });
            answers.add(own);
        }
        return answers;
    }

    /** One answer of a batch of results: the job's state after its result, or why it was refused. */
    public record ResultOutcome(String jobId, int attempt, JobState state, HourglassException error) {}

    /**
     * Up to {@link PullLimits#MAX_RESULTS} results at once, written in one transaction; one answer
     * per report, in order. A refused report changes nothing; the others are written all the same.
     */
    public List<ResultOutcome> reportResults(Caller caller, List<ResultReport> reports) {
        if (reports == null || reports.isEmpty() || reports.size() > PullLimits.MAX_RESULTS) {
            throw HourglassException.invalid("results", "results must hold 1.." + PullLimits.MAX_RESULTS + " reports");
        }
        long now = clock.millis();
        List<Long> ids = new ArrayList<>(reports.size());
        for (ResultReport r : reports) {
            ids.add(parsedId(r));
        }
        Map<Long, Job> live =
                jobs.findLive(ids.stream().filter(Objects::nonNull).toList());
        List<AttemptResult> results = new ArrayList<>(reports.size());
        List<HourglassException> errors = new ArrayList<>(reports.size());
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < reports.size(); i++) {
            ResultReport report = reports.get(i);
            Long id = ids.get(i);
            try {
                if (report.getJobId() == null) {
                    throw HourglassException.invalid("jobId", "jobId is required");
                }
                checkReport(report);
                if (id == null) {
                    throw HourglassException.notFound("job " + report.getJobId() + " not found");
                }
                Job job = live.get(id);
                job = job != null && (caller.scope() == null || job.app().equals(caller.scope()))
                        ? job
                        : get(caller, id); // NOT_FOUND, or final: CONFLICT below
                AttemptResult result = reported(job, report, now);
                if (!seen.add(id)) {
                    throw HourglassException.conflict("jobId", "job " + id + " has two results in this batch");
                }
                results.add(result);
                errors.add(null);
            } catch (HourglassException e) {
                results.add(null);
                errors.add(e);
            }
        }
        List<AttemptResult> written = results.stream().filter(Objects::nonNull).toList();
        Set<Long> ended = written.isEmpty() ? Set.of() : recordResults(written);
        List<ResultOutcome> answers = new ArrayList<>(reports.size());
        for (int i = 0; i < reports.size(); i++) {
            ResultReport report = reports.get(i);
            AttemptResult result = results.get(i);
            HourglassException error = errors.get(i);
            if (error == null && !ended.contains(result.jobId())) {
                error = HourglassException.conflict(
                        "attempt",
                        "attempt " + report.getAttempt() + " of job " + result.jobId() + " is not current any more");
            }
            answers.add(new ResultOutcome(
                    report.getJobId(),
                    report.getAttempt(),
                    error == null ? result.next().state() : null,
                    error));
        }
        return answers;
    }

    private static Long parsedId(ResultReport report) {
        try {
            return report.getJobId() == null ? null : Long.parseLong(report.getJobId());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A report's own fields, whatever its job: a bad one is refused and changes nothing. */
    private void checkReport(ResultReport report) {
        if (report == null || report.getStatus() == null) {
            throw HourglassException.invalid("status", "status is required: SUCCESS, RETRY, FAIL or RELEASE");
        }
        inputs.retryAfterMs(report.getRetryAfterMs());
        Long delayMs = report.getDelayMs();
        if (report.getStatus() == CallbackStatus.RELEASE && report.getRetryAfterMs() != null) {
            throw HourglassException.invalid("retryAfterMs", "RELEASE takes delayMs (retryAfterMs goes with RETRY)");
        }
        if (delayMs != null && report.getStatus() != CallbackStatus.RELEASE) {
            throw HourglassException.invalid("delayMs", "delayMs goes with RELEASE (RETRY takes retryAfterMs)");
        }
        inputs.releaseDelayMs(delayMs);
        if (report.getAttempt() < 1) { // over Dubbo a missing attempt arrives as 0
            throw HourglassException.invalid(
                    "attempt", "attempt must be 1 or more: the attempt number the job was handed out with");
        }
    }

    /**
     * The result a checked report makes of the job's current attempt: INVALID_ARGUMENT for a
     * RELEASE of a job that is not a reservation, CONFLICT when the attempt is not the current one.
     */
    private AttemptResult reported(Job job, ResultReport report, long now) {
        Optional<ServiceDefinition> service = catalog.find(job.app(), job.service());
        boolean pulled = service.map(s -> s.protocol() == Protocol.PULL).orElse(false);
        if (report.getStatus() == CallbackStatus.RELEASE && !pulled) {
            throw HourglassException.invalid("status", "RELEASE is for the reservations of PULL services");
        }
        Long delayMs = report.getDelayMs();
        if (job.state() != JobState.RUNNING || job.attempts() != report.getAttempt()) {
            throw notCurrent(job.id(), report.getAttempt(), job);
        }
        Backoff backoff = service.map(ServiceDefinition::backoff).orElse(Backoff.DEFAULT);
        return switch (report.getStatus()) {
            case SUCCESS ->
                AttemptEndings.reported(job, AttemptOutcome.SUCCESS, null, report.getMessage(), backoff, now);
            case RETRY ->
                pulled && report.getRetryAfterMs() != null
                        ? AttemptEndings.retriedByConsumer(job, report.getRetryAfterMs(), report.getMessage(), now)
                        : AttemptEndings.reported(
                                job, AttemptOutcome.RETRY, report.getRetryAfterMs(), report.getMessage(), backoff, now);
            case FAIL -> AttemptEndings.reported(job, AttemptOutcome.FAIL, null, report.getMessage(), backoff, now);
            case RELEASE ->
                AttemptEndings.released(job, delayMs == null ? 0 : delayMs, report.getMessage(), backoff, now);
        };
    }

    private static HourglassException notCurrent(long id, int attempt, Job job) {
        return HourglassException.conflict(
                "attempt",
                "attempt " + attempt + " is not the current attempt of job " + id + " (" + job.state() + ", attempt "
                        + job.attempts() + ")");
    }

    /**
     * A job made due within this node's loaded window moves to one of this node's shards, so it
     * fires from this node's memory on time whichever node owned it; a later one keeps its shard.
     */
    private Integer nearShard(long id, Long dueAt) {
        if (dueAt == null
                || !engine.isWithinLoadedWindow(dueAt)
                || shards.current().isEmpty()) {
            return null;
        }
        return placement.place(id, true, shards.current());
    }

    private HourglassException notChangeable(Caller caller, long id, String what) {
        Optional<Job> job =
                jobs.find(id).filter(j -> caller.scope() == null || j.app().equals(caller.scope()));
        if (job.isEmpty()) {
            return HourglassException.notFound("job " + id + " not found");
        }
        return HourglassException.conflict("job " + id + " is " + job.get().state() + " and cannot be " + what);
    }
}
