package dev.hourglass.node.store.mybatis;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/** Statements of {@link MyBatisReservationStore}; SQL in ReservationMapper.xml. */
public interface ReservationMapper {
    ServiceLockRow lockService(@Param("app") String app, @Param("service") String service);

    int saveRateTokens(
            @Param("app") String app,
            @Param("service") String service,
            @Param("tokens") double tokens,
            @Param("at") long at);

    long openReservations(@Param("app") String app, @Param("service") String service);

    List<NextDueRow> nextDue(@Param("services") List<ServiceName> services);

    List<BacklogRow> backlogs(@Param("services") List<ServiceName> services, @Param("now") long now);

    List<ReadyRow> readyRows(
            @Param("app") String app,
            @Param("service") String service,
            @Param("horizon") long horizon,
            @Param("limit") int limit);

    int reserve(
            @Param("ids") IdList ids,
            @Param("node") String node,
            @Param("token") String token,
            @Param("now") long now,
            @Param("horizon") long horizon,
            @Param("holdMs") long holdMs,
            @Param("ttrMs") Long ttrMs,
            @Param("minTtrMs") long minTtrMs,
            @Param("maxTtrMs") long maxTtrMs);

    int unreserve(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("dueAt") long dueAt,
            @Param("node") String node,
            @Param("now") long now);

    int touch(
            @Param("jobId") long jobId,
            @Param("attempt") int attempt,
            @Param("ttrMs") long ttrMs,
            @Param("maxLifeMs") long maxLifeMs,
            @Param("now") long now);

    Long deadline(@Param("jobId") long jobId, @Param("attempt") int attempt);

    QueueRow queue(@Param("app") String app, @Param("service") String service, @Param("now") long now);

    List<JobRow> peek(
            @Param("app") String app,
            @Param("service") String service,
            @Param("now") long now,
            @Param("limit") int limit);
}
