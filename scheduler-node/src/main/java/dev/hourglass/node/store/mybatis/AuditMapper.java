package dev.hourglass.node.store.mybatis;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/** SQL of the audit log; see AuditMapper.xml. */
public interface AuditMapper {
    int insert(AuditRow row);

    List<AuditRow> list(@Param("app") String app, @Param("limit") int limit, @Param("beforeId") Long beforeId);
}
