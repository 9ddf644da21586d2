package dev.hourglass.node.store.mybatis;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/** SQL of job_callback_service; see ServiceMapper.xml. */
public interface ServiceMapper {
    int insert(ServiceRow row);

    int update(ServiceRow row);

    ServiceRow find(@Param("app") String app, @Param("name") String name);

    List<ServiceRow> list(@Param("app") String app);

    int delete(@Param("app") String app, @Param("name") String name);

    int countLiveJobs(@Param("app") String app, @Param("name") String name);
}
