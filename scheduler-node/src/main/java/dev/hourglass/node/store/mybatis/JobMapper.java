package dev.hourglass.node.store.mybatis;

import java.util.Collection;
import java.util.List;
import org.apache.ibatis.annotations.Param;

/** SQL of the job tables; see JobMapper.xml. Every state change is conditional. */
public interface JobMapper {
    int insert(JobRow row);

    int insertAll(@Param("rows") List<JobRow> rows);

    JobRow findLive(@Param("id") long id);

    JobRow findFinal(@Param("id") long id);

    List<JobRow> findLiveByBizKeys(@Param("app") String app, @Param("keys") Collection<String> keys);

    List<JobRow> findFinalByBizKeys(@Param("app") String app, @Param("keys") Collection<String> keys);

    List<JobRow> searchLive(@Param("q") SearchParams q);

    List<JobRow> searchFinal(@Param("q") SearchParams q);

    List<ExecutionRow> executions(@Param("jobId") long jobId);

    int reschedule(
            @Param("id") long id,
            @Param("app") String app,
            @Param("fireAt") Long fireAt,
            @Param("shard") Integer shard,
            @Param("payload") String payload,
            @Param("attributes") String attributes,
            @Param("now") long now);

    int markFinal(
            @Param("id") long id,
            @Param("app") String app,
            @Param("from") Collection<String> from,
            @Param("state") String state,
            @Param("message") String message,
            @Param("token") String token,
            @Param("now") long now);

    int copyToBacklog(@Param("ids") IdList ids, @Param("token") String token, @Param("now") long now);

    int deleteLive(@Param("ids") IdList ids, @Param("token") String token);

    int revive(
            @Param("id") long id,
            @Param("app") String app,
            @Param("from") Collection<String> from,
            @Param("fireAt") long fireAt,
            @Param("shard") int shard,
            @Param("now") long now);

    int deleteFinal(@Param("id") long id);

    int claim(
            @Param("ids") IdList ids,
            @Param("node") String node,
            @Param("token") String token,
            @Param("now") long now,
            @Param("horizon") long horizon);

    List<JobRow> findByToken(@Param("ids") IdList ids, @Param("token") String token);

    int openExecutions(
            @Param("ids") IdList ids, @Param("token") String token, @Param("node") String node, @Param("now") long now);

    int expire(@Param("ids") IdList ids, @Param("token") String token, @Param("now") long now);

    int closeExecution(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("finishedAt") long finishedAt,
            @Param("outcome") String outcome,
            @Param("message") String message);

    int retryLater(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("retryAt") long retryAt,
            @Param("message") String message,
            @Param("now") long now);

    int endAttempt(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("state") String state,
            @Param("message") String message,
            @Param("token") String token,
            @Param("now") long now);

    List<DueRow> loadDue(
            @Param("shards") Collection<Integer> shards,
            @Param("from") long from,
            @Param("to") long to,
            @Param("limit") int limit);

    List<JobRow> findTimedOut(
            @Param("shards") Collection<Integer> shards, @Param("now") long now, @Param("limit") int limit);

    List<CountRow> countLive(@Param("app") String app);
}
