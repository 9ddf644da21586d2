package dev.hourglass.node.store.mybatis;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/** SQL of job_callback_service; see ServiceMapper.xml. */
public interface ServiceMapper {
    int insert(ServiceRow row);

    int update(ServiceRow row);

    ServiceRow find(@Param("app") String app, @Param("name") String name);

    ServiceRow findForUpdate(@Param("app") String app, @Param("name") String name);

    List<ServiceRow> list(@Param("app") String app);

    int delete(@Param("app") String app, @Param("name") String name);

    int pause(@Param("app") String app, @Param("name") String name, @Param("by") String by, @Param("now") long now);

    int resume(@Param("app") String app, @Param("name") String name, @Param("now") long now);

    int bumpVersion();

    long version();

    /** The services of {@code app} whose dead letter is {@code name}. */
    List<String> deadLetterOf(@Param("app") String app, @Param("name") String name);

    int flagJobsPulled(@Param("app") String app, @Param("name") String name, @Param("pulled") boolean pulled);

    /** Any one live job of the service, by a locking read; null if none. */
    Long anyLiveJob(@Param("app") String app, @Param("name") String name);
}
