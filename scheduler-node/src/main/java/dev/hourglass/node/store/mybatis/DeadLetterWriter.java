package dev.hourglass.node.store.mybatis;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.DeadLetters;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.ibatis.session.SqlSession;

/**
 * Writes the dead letters of jobs a transaction ends, in that transaction: the stores that end jobs
 * FAILED or EXPIRED (results, expiry at a claim or a reservation) call it after moving them to the
 * backlog and before they commit. A job ends once (every end is conditional on its attempt), so its
 * letter is written once; its bizKey ({@code dlq:<id>:<attempt>}) is taken here like a submit's,
 * and a letter whose key is held already (a retried job ending again under the same attempt
 * number) is not written twice.
 *
 * <p>Plain JDBC on the session's connection, like {@link JobRowInsert}: the stores' sessions batch
 * their MyBatis statements, and a batched insert does not say whether it inserted. Letters are
 * rare, so one statement per letter is cheap.
 */
final class DeadLetterWriter {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DeadLetterWriter.class);
    private volatile DeadLetters letters = DeadLetters.NONE;

    void sendTo(DeadLetters letters) {
        this.letters = letters;
    }

    DeadLetters letters() {
        return letters;
    }

    /** Whether any of these ended jobs (id → service key and end state) gets a letter: memory only. */
    boolean anyRouted(Map<Long, Ended> ended) {
        DeadLetters l = letters;
        for (Ended e : ended.values()) {
            if (l.routes(e.serviceKey(), e.state())) {
                return true;
            }
        }
        return false;
    }

    /** A job the transaction ended: its service and how it ended. */
    record Ended(String serviceKey, JobState state) {}

    /**
     * Writes the letters of those of {@code ended} that get one, reading them from the backlog
     * where the transaction moved them; returns the letters written, for {@link #stored} after the
     * commit.
     */
    List<Job> write(SqlSession s, Map<Long, Ended> ended, long now) {
        DeadLetters l = letters;
        List<Long> routed = new ArrayList<>();
        ended.forEach((id, e) -> {
            if (l.routes(e.serviceKey(), e.state())) {
                routed.add(id);
            }
        });
        if (routed.isEmpty()) {
            return List.of();
        }
        List<Job> written = new ArrayList<>();
        JobMapper m = s.getMapper(JobMapper.class);
        List<JobRow> endedRows = m.findFinalByIds(IdList.of(routed)); // flushes the session's batch first
        try {
            Connection c = s.getConnection();
            LiveCountDeltas counts = new LiveCountDeltas();
            for (JobRow row : endedRows) {
                Job letter = l.letterOf(JobRows.toJob(row), now).orElse(null);
                if (letter != null && !takeBizKey(c, letter)) {
                    // its key was taken by an earlier letter of the same job at the same attempt
                    // count (ended again after a manual retry without a new attempt)
                    LOG.warn(
                            "job {} ended {}: its dead letter {} exists already; no second one",
                            row.id,
                            row.state,
                            letter.bizKey());
                } else if (letter != null) {
                    JobRowInsert.insertLive(c, List.of(JobRows.toRow(letter)));
                    counts.added(letter.app(), letter.service(), letter.state().name());
                    written.add(letter);
                }
            }
            counts.writeTo(c);
        } catch (SQLException e) {
            throw UnavailabilityTranslator.translate(e);
        }
        return written;
    }

    /** After the commit: the letters go to whoever fires them. */
    void stored(List<Job> written) {
        if (!written.isEmpty()) {
            letters.stored(written);
        }
    }

    private static boolean takeBizKey(Connection c, Job letter) throws SQLException {
        return BizKeyInsert.take(c, List.of(new BizKeyRow(letter.app(), letter.bizKey(), letter.id()))) == 1;
    }
}
