package dev.hourglass.node.store.mybatis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.ibatis.session.SqlSession;

/**
 * Live jobs a transaction has locked, kept in step with the conditional updates it makes, so
 * that the live-count deltas it writes are exactly what those updates did — also in a JDBC batch,
 * where the updates' row counts are not known before the commit (and some drivers never tell).
 */
final class LiveJobs {
    private final Map<Long, LockedJobRow> byId = new HashMap<>();
    /** The whole rows, when locked by {@link #lockWhole}. */
    private final Map<Long, JobRow> whole = new HashMap<>();

    private final LiveCountDeltas counts = new LiveCountDeltas();

    private LiveJobs() {}

    /** Locks the live ones of {@code jobIds} (ascending, as every transaction here takes them). */
    static LiveJobs lock(SqlSession s, List<Long> jobIds) {
        LiveJobs live = new LiveJobs();
        if (!jobIds.isEmpty()) {
            JobRowSelect.lockLive(s, IdList.of(jobIds)).forEach(r -> live.byId.put(r.id, r));
        }
        return live;
    }

    /**
     * Locks the live ones of {@code jobIds} like {@link #lock}, and keeps their whole rows, for the
     * jobs that end in the transaction to be written to the backlog from ({@link #lockedRow}).
     */
    static LiveJobs lockWhole(SqlSession s, List<Long> jobIds) {
        LiveJobs live = new LiveJobs();
        if (!jobIds.isEmpty()) {
            for (JobRow r : JobRowSelect.lockLiveWhole(s, IdList.of(jobIds))) {
                live.whole.put(r.id, r);
                live.byId.put(r.id, LockedJobRow.of(r));
            }
        }
        return live;
    }

    /** The whole row of a job as {@link #lockWhole} locked it, whatever changed since; null if not live then. */
    JobRow lockedRow(long jobId) {
        return whole.get(jobId);
    }

    /**
     * Mirrors an update conditional on "attempt {@code attempt} of the job is RUNNING": if that
     * holds, the job moves to {@code to}, or leaves the live table when {@code to} is null.
     */
    void moveRunning(long jobId, int attempt, String to) {
        LockedJobRow r = byId.get(jobId);
        if (r == null || r.attempts != attempt || !"RUNNING".equals(r.state)) {
            return;
        }
        counts.removed(r.app, r.service, r.state);
        if (to == null) {
            byId.remove(jobId);
        } else {
            counts.added(r.app, r.service, to);
            r.state = to;
        }
    }

    /** Whether attempt {@code attempt} of the job is RUNNING, as locked and changed so far. */
    boolean isRunning(long jobId, int attempt) {
        LockedJobRow r = byId.get(jobId);
        return r != null && r.attempts == attempt && "RUNNING".equals(r.state);
    }

    /**
     * Whether a result applies to the job as locked: always, unless it was decided from a read of
     * the job ({@code readVersion}) and the job changed since.
     */
    boolean unchangedSince(long jobId, Integer readVersion) {
        if (readVersion == null) {
            return true;
        }
        LockedJobRow r = byId.get(jobId);
        return r != null && r.version == readVersion;
    }

    LiveCountDeltas counts() {
        return counts;
    }
}
