package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.port.AlertStore.AlertQuery;
import java.util.List;
import org.apache.ibatis.annotations.Param;

/** SQL of alerts and of the measures alert policies are judged on; see AlertMapper.xml. */
public interface AlertMapper {
    long failedJobsSince(@Param("app") String app, @Param("service") String service, @Param("since") long since);

    List<String> latestOutcomes(@Param("app") String app, @Param("service") String service, @Param("limit") int limit);

    List<OverdueRow> oldestOverdue(
            @Param("shards") List<Integer> shards, @Param("before") long before, @Param("perShard") int perShard);

    List<AlertRow> firing();

    int open(AlertRow row);

    int resolve(@Param("id") long id, @Param("now") long now);

    List<AlertRow> owedNotifications(@Param("now") long now, @Param("limit") int limit);

    int takeNotification(@Param("id") long id, @Param("expected") long expected, @Param("until") long until);

    int notified(@Param("id") long id, @Param("state") String state, @Param("now") long now);

    int owedAgain(@Param("id") long id, @Param("state") String state, @Param("now") long now);

    int notifyFailed(
            @Param("id") long id,
            @Param("state") String state,
            @Param("attempts") int attempts,
            @Param("nextAt") long nextAt,
            @Param("error") String error,
            @Param("now") long now);

    List<AlertRow> search(@Param("q") AlertQuery q, @Param("limit") int limit);

    int acknowledge(@Param("id") long id, @Param("app") String app, @Param("by") String by, @Param("now") long now);

    AlertRow find(@Param("id") long id);
}
