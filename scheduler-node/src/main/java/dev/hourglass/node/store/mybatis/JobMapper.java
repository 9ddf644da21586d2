package dev.hourglass.node.store.mybatis;

import java.util.Collection;
import java.util.List;
import org.apache.ibatis.annotations.Param;

/** SQL of the job tables; see JobMapper.xml. Every state change is conditional. */
public interface JobMapper {
    // bizKeys are taken by BizKeyInsert (plain JDBC)

    List<BizKeyRow> bizKeyOwners(@Param("app") String app, @Param("keys") Collection<String> keys);

    List<JobRow> findLiveByIds(@Param("ids") IdList ids);

    List<JobRow> findFinalByIds(@Param("ids") IdList ids);

    JobRow findLive(@Param("id") long id);

    JobRow findFinal(@Param("id") long id);

    List<JobRow> findLiveByBizKeys(@Param("app") String app, @Param("keys") Collection<String> keys);

    List<JobRow> findFinalByBizKeys(@Param("app") String app, @Param("keys") Collection<String> keys);

    List<JobRow> searchLive(@Param("q") SearchParams q);

    List<JobRow> searchFinal(@Param("q") SearchParams q);

    /** The highest shard of a live job (one look at the due-time index), null when there is none. */
    @org.apache.ibatis.annotations.Select("SELECT MAX(shard) FROM job_delay_task")
    Integer maxLiveShard();

    List<ExecutionRow> executions(@Param("jobId") long jobId);

    ExecutionRow runningAttempt(@Param("jobId") long jobId);

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

    // the rows a claim took, by its token: JobRowSelect.byToken (plain JDBC)

    int expire(@Param("ids") IdList ids, @Param("token") String token, @Param("now") long now);

    int closeExecution(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("firedAt") Long firedAt,
            @Param("finishedAt") long finishedAt,
            @Param("outcome") String outcome,
            @Param("message") String message);

    int markSent(@Param("jobId") long jobId, @Param("attempt") int attempt, @Param("firedAt") long firedAt);

    int markSentLogged(@Param("jobId") long jobId, @Param("attempt") int attempt, @Param("firedAt") long firedAt);

    int writeExecutionFromLive(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("firedAt") Long firedAt,
            @Param("finishedAt") Long finishedAt,
            @Param("outcome") String outcome,
            @Param("message") String message);

    int retryLater(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("retryAt") long retryAt,
            @Param("extend") int maxAttemptsAdded,
            @Param("unspent") int budgetBaseAdded,
            @Param("message") String message,
            @Param("now") long now);

    int deleteEnded(@Param("ids") IdList ids);

    List<JobRow> findTimedOut(
            @Param("shards") Collection<Integer> shards,
            @Param("now") long now,
            @Param("afterId") long afterId,
            @Param("limit") int limit);

    List<JobRow> findOrphaned(
            @Param("shards") Collection<Integer> shards,
            @Param("live") Collection<String> liveNodes,
            @Param("self") String self,
            @Param("startedAt") long selfStartedAt,
            @Param("afterId") long afterId,
            @Param("limit") int limit);

    int unclaim(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("node") String node,
            @Param("now") long now);

    int renewDeadline(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("node") String node,
            @Param("now") long now);

    int deleteOpenExecution(@Param("jobId") long jobId, @Param("attempt") int attempt);

    int failInPlace(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("message") String message,
            @Param("now") long now);

    List<CountRow> countLive(@Param("app") String app);

    List<CountRow> countLiveByScan();

    List<OldestWaitingRow> oldestWaiting();

    int appendCountDeltas(@Param("rows") List<CountDeltaRow> rows);

    // locks of live jobs before a change of state: JobRowSelect.lockLive (plain JDBC)

    String lockForFold();

    List<CountDeltaRow> oldestCountDeltas(@Param("limit") int limit);

    int addToCount(
            @Param("app") String app,
            @Param("service") String service,
            @Param("state") String state,
            @Param("delta") long delta);

    int insertCount(
            @Param("app") String app,
            @Param("service") String service,
            @Param("state") String state,
            @Param("delta") long delta);

    int deleteCountDeltas(@Param("ids") IdList ids);

    int deleteEmptyCounts();
}
