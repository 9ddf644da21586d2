package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.port.RetentionStore;
import java.util.List;
import java.util.StringJoiner;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * {@link RetentionStore} on MyBatis: select by index, then delete by primary key, one short
 * transaction per batch. The statements and their plans are in {@link RetentionMapper}.
 */
public final class MyBatisRetentionStore implements RetentionStore {
    private final SqlSessionFactory sessions;

    public MyBatisRetentionStore(SqlSessionFactory sessions) {
        this.sessions = sessions;
    }

    @Override
    public int deleteExecutionsFinishedBefore(long cutoff, int limit) {
        try (SqlSession s = sessions.openSession(false)) {
            RetentionMapper m = s.getMapper(RetentionMapper.class);
            List<ExecutionKey> keys = m.finishedBefore(cutoff, limit);
            if (keys.isEmpty()) {
                return 0;
            }
            int deleted = m.deleteExecutions(rowList(keys), cutoff);
            s.commit();
            return deleted;
        }
    }

    @Override
    public Purged deleteFinalJobsEndedBefore(long cutoff, int limit) {
        try (SqlSession s = sessions.openSession(false)) {
            RetentionMapper m = s.getMapper(RetentionMapper.class);
            List<Long> locked = m.lockFinalEndedBefore(cutoff, limit);
            if (locked.isEmpty()) {
                return Purged.NOTHING;
            }
            IdList ids = IdList.of(locked);
            int bizKeys = m.deleteBizKeysOf(ids);
            int executions = m.deleteExecutionsOf(ids);
            int jobs = m.deleteFinal(ids);
            s.commit();
            return new Purged(jobs, executions, bizKeys);
        }
    }

    /** {@code (1,2),(3,1)}: only numbers, so safe as SQL text. */
    private static String rowList(List<ExecutionKey> keys) {
        StringJoiner rows = new StringJoiner(",");
        for (ExecutionKey k : keys) {
            rows.add("(" + k.jobId + "," + k.attempt + ")");
        }
        return rows.toString();
    }
}
