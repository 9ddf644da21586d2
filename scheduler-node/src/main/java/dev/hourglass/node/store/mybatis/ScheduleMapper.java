package dev.hourglass.node.store.mybatis;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/** SQL of hg_schedule; see ScheduleMapper.xml. */
public interface ScheduleMapper {
    int insert(ScheduleRow row);

    int replace(ScheduleRow row);

    ScheduleRow find(@Param("app") String app, @Param("name") String name);

    /** The registry's row of the greatest bizKey in [from, to]: keys of one prefix, by their number. */
    BizKeyRow lastBizKeyWithin(@Param("app") String app, @Param("from") String from, @Param("to") String to);

    ScheduleRow lock(@Param("app") String app, @Param("name") String name);

    List<ScheduleRow> list(
            @Param("app") String app,
            @Param("afterApp") String afterApp,
            @Param("afterName") String afterName,
            @Param("limit") int limit);

    int delete(@Param("app") String app, @Param("name") String name);

    List<String> namingService(@Param("app") String app, @Param("service") String service);

    int pause(@Param("app") String app, @Param("name") String name, @Param("now") long now);

    int resume(@Param("app") String app, @Param("name") String name, @Param("now") long now);

    List<ScheduleRow> due(@Param("shards") List<Integer> shards, @Param("now") long now, @Param("limit") int limit);

    int advance(
            @Param("app") String app,
            @Param("name") String name,
            @Param("cursorAt") long cursorAt,
            @Param("nextCheckAt") Long nextCheckAt,
            @Param("lastOccurrenceAt") Long lastOccurrenceAt,
            @Param("lastJobId") Long lastJobId,
            @Param("now") long now);

    List<BizKeyRow> unfiredJobs(@Param("app") String app, @Param("like") String like);

    int postpone(
            @Param("app") String app,
            @Param("name") String name,
            @Param("generation") long generation,
            @Param("until") long until);
}
