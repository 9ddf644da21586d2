package dev.hourglass.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * What a group of pull consumers saw: every reservation by job id (a job reserved twice is a
 * duplicate), the lateness of each job's first reservation (when the consumer held it, by the
 * client's clock, minus the job's fireAt: client and node share the machine's clock), the latency
 * of the reserve and results calls, and every acknowledgement's outcome.
 *
 * <p>Lateness by path: each first reservation also keeps the node URL it was reserved through.
 * Given the node URL each job was submitted through ({@link #report(ObjectMapper, boolean, boolean,
 * Map)}), the lateness is reported again split in two: {@code latenessSameNodeMs}, the jobs
 * reserved through the node they were submitted through, and {@code latenessOtherNodeMs}, those
 * reserved through any other node. Each has a {@code count} (jobs) and the percentiles of {@code
 * latenessMs} ({@code p50}, {@code p95}, {@code p99}, {@code p999}, {@code max}, ms, a lateness
 * below 0 counted as 0). A split with {@code count} 0 — {@code latenessOtherNodeMs} with one node —
 * has every percentile {@code null}, never omitted, never 0. The split is made when the report is
 * written, not when the job is reserved, so a submit answered after its job was already reserved
 * still counts. A reserved job whose submit node is unknown (one not submitted in this run) or whose
 * reserve node is unknown is in neither split: the two counts add up to {@code reservedJobs} less
 * such jobs.
 *
 * <p>Thread-safe: the consumer threads record concurrently; readers get a moment's counts.
 */
final class PullTally {
    /** The first errors seen, kept whole for the report; the rest are only counted. */
    private static final int ERRORS_KEPT = 5;

    private final ConcurrentHashMap<String, Integer> reservations = new ConcurrentHashMap<>();
    /** Each job's first reservation: its lateness and the node it was reserved through. */
    private final ConcurrentHashMap<String, First> firsts = new ConcurrentHashMap<>();

    private final AtomicLong reservationCount = new AtomicLong();
    private final ConcurrentHistogram latenessMs = new ConcurrentHistogram(3_600_000L, 3);
    private final AtomicLong early = new AtomicLong();
    private final AtomicLong mostEarlyMs = new AtomicLong();

    /** Reserve calls that brought jobs, from the request to the whole answer read. */
    private final ConcurrentHistogram reserveMicros = new ConcurrentHistogram(60_000_000L, 3);

    private final ConcurrentHistogram resultsMicros = new ConcurrentHistogram(60_000_000L, 3);
    private final AtomicLong reserveCalls = new AtomicLong();
    private final AtomicLong emptyReserves = new AtomicLong();
    private final AtomicLong failedReserves = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong refusedResults = new AtomicLong();
    /** Results of a POST /results that failed whole (an error status or no answer). */
    private final AtomicLong unansweredResults = new AtomicLong();

    private final List<String> firstErrors = new CopyOnWriteArrayList<>();
    private final AtomicLong errors = new AtomicLong();

    /** A reserve call that answered {@code items} jobs after {@code micros}. */
    void reserveCall(int items, long micros) {
        reserveCalls.incrementAndGet();
        if (items == 0) {
            emptyReserves.incrementAndGet(); // a wait that ran out: not a reserve's cost
        } else {
            reserveMicros.recordValue(Math.min(micros, 60_000_000L));
        }
    }

    /** What the lateness figures keep of a job's first reservation. */
    private record First(long latenessMs, String nodeUrl) {}

    /** The consumer holds job {@code id}, due at {@code fireAtMs}, since {@code heldAtMs}; node unknown. */
    void reserved(String id, long fireAtMs, long heldAtMs) {
        reserved(id, fireAtMs, heldAtMs, null);
    }

    /**
     * The consumer holds job {@code id}, due at {@code fireAtMs}, since {@code heldAtMs}, reserved
     * through the node at {@code nodeUrl} (null: unknown).
     */
    void reserved(String id, long fireAtMs, long heldAtMs, String nodeUrl) {
        reservationCount.incrementAndGet();
        if (reservations.merge(id, 1, Integer::sum) == 1) {
            long late = heldAtMs - fireAtMs;
            if (late < 0) {
                early.incrementAndGet();
                mostEarlyMs.accumulateAndGet(late, Math::min);
            }
            long recorded = Math.min(Math.max(0, late), 3_600_000L);
            latenessMs.recordValue(recorded);
            firsts.put(id, new First(recorded, nodeUrl));
        }
    }

    /** A POST /results answered after {@code micros}: {@code finished} items FINISHED, {@code refused} refused. */
    void resultsCall(int finished, int refused, long micros) {
        resultsMicros.recordValue(Math.min(micros, 60_000_000L));
        acknowledged.addAndGet(finished);
        refusedResults.addAndGet(refused);
    }

    void reserveFailed(String what) {
        failedReserves.incrementAndGet();
        error("reserve: " + what);
    }

    void resultsFailed(int items, String what) {
        unansweredResults.addAndGet(items);
        error("results: " + what);
    }

    void error(String what) {
        if (errors.incrementAndGet() <= ERRORS_KEPT) {
            firstErrors.add(what.length() > 500 ? what.substring(0, 500) + "…" : what);
        }
    }

    long acknowledged() {
        return acknowledged.get();
    }

    /** Jobs reserved at least once. */
    long distinctReserved() {
        return reservations.size();
    }

    /** Whether every reservation so far has had its result answered, one way or another. */
    boolean allAnswered() {
        return acknowledged.get() + refusedResults.get() + unansweredResults.get() >= reservationCount.get();
    }

    /** Jobs reserved more than once. */
    long duplicated() {
        return reservations.values().stream().filter(n -> n > 1).count();
    }

    /** Of {@code expected}, the jobs never reserved. */
    long missed(Collection<String> expected) {
        return expected.stream().filter(id -> !reservations.containsKey(id)).count();
    }

    /** Reserved jobs that are not in {@code expected}. */
    long unexpected(Set<String> expected) {
        return reservations.keySet().stream()
                .filter(id -> !expected.contains(id))
                .count();
    }

    long early() {
        return early.get();
    }

    /** Counts and percentiles for the report; {@code lateness}: with the lateness figures. */
    ObjectNode report(ObjectMapper json, boolean lateness, boolean reserveLatency) {
        return report(json, lateness, reserveLatency, null);
    }

    /**
     * Counts and percentiles for the report; {@code lateness}: with the lateness figures, and,
     * given {@code submittedThrough} (job id → the node URL it was submitted through), with them
     * split by path ({@code latenessSameNodeMs}, {@code latenessOtherNodeMs}; see the class).
     */
    ObjectNode report(
            ObjectMapper json, boolean lateness, boolean reserveLatency, Map<String, String> submittedThrough) {
        ObjectNode out = json.createObjectNode();
        out.put("reservedJobs", reservations.size());
        out.put("reservations", reservationCount.get());
        out.put("duplicated", duplicated());
        if (lateness) {
            ObjectNode late = out.putObject("latenessMs");
            late.put("p50", latenessMs.getValueAtPercentile(50));
            late.put("p95", latenessMs.getValueAtPercentile(95));
            late.put("p99", latenessMs.getValueAtPercentile(99));
            late.put("p999", latenessMs.getValueAtPercentile(99.9));
            late.put("max", latenessMs.getMaxValue());
            if (submittedThrough != null) {
                Histogram same = new Histogram(3_600_000L, 3);
                Histogram other = new Histogram(3_600_000L, 3);
                firsts.forEach((id, first) -> {
                    String submitNode = submittedThrough.get(id);
                    if (submitNode != null && first.nodeUrl() != null) {
                        (submitNode.equals(first.nodeUrl()) ? same : other).recordValue(first.latenessMs());
                    }
                });
                out.set("latenessSameNodeMs", split(json, same));
                out.set("latenessOtherNodeMs", split(json, other));
            }
            out.put("early", early.get());
            out.put("mostEarlyMs", mostEarlyMs.get());
        }
        out.put("reserveCalls", reserveCalls.get());
        out.put("emptyReserves", emptyReserves.get());
        out.put("failedReserves", failedReserves.get());
        if (reserveLatency) {
            out.set("reserveLatencyMs", percentiles(json, reserveMicros));
        }
        out.set("resultsLatencyMs", percentiles(json, resultsMicros));
        out.put("acknowledged", acknowledged.get());
        out.put("refusedResults", refusedResults.get());
        out.put("unansweredResults", unansweredResults.get());
        out.put("errors", errors.get());
        ArrayNode first = out.putArray("firstErrors");
        firstErrors.forEach(first::add);
        return out;
    }

    /** One path's lateness: its count and, unless it is 0, the percentiles of latenessMs (else null). */
    private static ObjectNode split(ObjectMapper json, Histogram lateness) {
        ObjectNode out = json.createObjectNode();
        long count = lateness.getTotalCount();
        out.put("count", count);
        String[] names = {"p50", "p95", "p99", "p999"};
        double[] percentiles = {50, 95, 99, 99.9};
        for (int i = 0; i < names.length; i++) {
            if (count == 0) {
                out.putNull(names[i]);
            } else {
                out.put(names[i], lateness.getValueAtPercentile(percentiles[i]));
            }
        }
        if (count == 0) {
            out.putNull("max");
        } else {
            out.put("max", lateness.getMaxValue());
        }
        return out;
    }

    private static ObjectNode percentiles(ObjectMapper json, ConcurrentHistogram micros) {
        ObjectNode out = json.createObjectNode();
        out.put("p50", micros.getValueAtPercentile(50) / 1_000.0);
        out.put("p99", micros.getValueAtPercentile(99) / 1_000.0);
        out.put("max", micros.getMaxValue() / 1_000.0);
        return out;
    }
}
