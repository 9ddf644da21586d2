package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.background.Periodic;
import java.util.ArrayList;
import java.util.List;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * Folds the committed live-count deltas into {@code hg_live_count} (V5__live_counts.sql), so that
 * a count reads the few folded rows plus at most about a second of deltas.
 *
 * <p>Every node runs it; the {@code hg_lock} row makes one fold at a time cluster-wide, so a
 * delta is never added twice. A fold reads committed deltas only and deletes exactly the ones it
 * read, in one transaction with the counts it adds them to: a delta of a transaction still open
 * is left for the next fold, and a failed fold leaves everything as it was. Counts are exact
 * whether folding runs or not; folding only keeps the delta table, and so the read, small.
 */
public final class LiveCountFolder implements AutoCloseable {
    /** Deltas per fold transaction: short enough not to hold the lock row for long. */
    static final int BATCH = 5_000;

    private final SqlSessionFactory sessions;
    private final long intervalMs;
    private Periodic thread;

    public LiveCountFolder(SqlSessionFactory sessions, long intervalMs) {
        this.sessions = sessions;
        this.intervalMs = intervalMs;
    }

    public synchronized void start() {
        thread = Periodic.every("hourglass-count-fold", intervalMs, this::foldAll);
    }

    /** Folds until fewer than a batch of deltas is left; the number of deltas folded. */
    public long foldAll() {
        long folded = 0;
        int batch;
        do {
            batch = foldOnce();
            folded += batch;
        } while (batch == BATCH && !Thread.currentThread().isInterrupted());
        return folded;
    }

    /** One fold transaction of at most {@link #BATCH} deltas, oldest first; how many it folded. */
    int foldOnce() {
        try (SqlSession s = sessions.openSession(false)) {
            JobMapper m = s.getMapper(JobMapper.class);
            if (m.lockForFold() == null) {
                // without the lock row two folds could add the same deltas: fold nothing
                throw new IllegalStateException("hg_lock has no live-count-fold row (see V5__live_counts.sql)");
            }
            List<CountDeltaRow> deltas = m.oldestCountDeltas(BATCH);
            if (deltas.isEmpty()) {
                s.commit();
                return 0;
            }
            LiveCountDeltas sums = new LiveCountDeltas();
            List<Long> ids = new ArrayList<>(deltas.size());
            for (CountDeltaRow d : deltas) {
                ids.add(d.id);
                sums.add(d.app, d.service, d.state, d.delta);
            }
            // in key order: two writers of hg_live_count would lock its rows in the same order
            for (CountDeltaRow sum : sums.nonZero()) {
                if (m.addToCount(sum.app, sum.service, sum.state, sum.delta) == 0) {
                    m.insertCount(sum.app, sum.service, sum.state, sum.delta);
                }
            }
            if (m.deleteCountDeltas(IdList.of(ids)) != ids.size()) {
                s.rollback(); // another fold took some of them: cannot happen under the lock
                throw new IllegalStateException("live-count deltas folded twice; fold rolled back");
            }
            m.deleteEmptyCounts();
            s.commit();
            return deltas.size();
        }
    }

    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.close();
            thread = null;
        }
    }
}
