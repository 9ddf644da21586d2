package dev.hourglass.node.store.mybatis;

import java.util.List;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/**
 * SQL of retention. Portable to MySQL 8, MariaDB and H2: rows are found by an index range, oldest
 * first, with {@code ORDER BY ... LIMIT} on a SELECT (a DELETE with ORDER BY/LIMIT is MySQL's
 * only), then deleted by primary key. {@code ${}} is safe: the lists render only numbers.
 */
public interface RetentionMapper {
    /** idx_execlog_finished (V3): a range scan of the index alone; NULL (open) rows are outside it. */
    @Select("SELECT job_id, attempt FROM job_delay_task_execlog WHERE finished_at < #{cutoff}"
            + " ORDER BY finished_at LIMIT #{limit}")
    List<ExecutionKey> finishedBefore(@Param("cutoff") long cutoff, @Param("limit") int limit);

    /** By primary key; the condition is re-checked, so a row can only go if it is still finished and old. */
    @Delete("DELETE FROM job_delay_task_execlog WHERE finished_at < #{cutoff} AND (job_id, attempt) IN (${keys})")
    int deleteExecutions(@Param("keys") String keys, @Param("cutoff") long cutoff);

    /**
     * idx_backlog_ended_at (V3). A locking read: the jobs it returns stay in the backlog until this
     * transaction ends, and one that a manual retry moved back to the live table meanwhile is not
     * returned (see MyBatisJobMutations.revive).
     */
    @Select("SELECT id FROM job_delay_task_backlog WHERE ended_at < #{cutoff}"
            + " ORDER BY ended_at LIMIT #{limit} FOR UPDATE")
    List<Long> lockFinalEndedBefore(@Param("cutoff") long cutoff, @Param("limit") int limit);

    /** idx_biz_key_job (V2). */
    @Delete("DELETE FROM hg_biz_key WHERE job_id IN (${ids.sql})")
    int deleteBizKeysOf(@Param("ids") IdList ids);

    /** The primary key's prefix: every attempt of these jobs, including one a cancel left open. */
    @Delete("DELETE FROM job_delay_task_execlog WHERE job_id IN (${ids.sql})")
    int deleteExecutionsOf(@Param("ids") IdList ids);

    @Delete("DELETE FROM job_delay_task_backlog WHERE id IN (${ids.sql})")
    int deleteFinal(@Param("ids") IdList ids);
}
