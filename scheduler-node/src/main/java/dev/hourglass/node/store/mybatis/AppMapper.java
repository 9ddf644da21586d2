package dev.hourglass.node.store.mybatis;

import java.util.List;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** SQL of apps, their tokens and their delivery target grants: short enough to live here as annotations. */
public interface AppMapper {
    @Insert("INSERT INTO hg_app (name, created_at) VALUES (#{name}, #{now})")
    int insertApp(@Param("name") String name, @Param("now") long now);

    @Select("SELECT name FROM hg_app ORDER BY name")
    List<String> listApps();

    @Select("SELECT COUNT(*) FROM hg_app WHERE name = #{name}")
    int countApp(@Param("name") String name);

    @Insert("INSERT INTO hg_app_token (id, app, token_hash, created_at) VALUES (#{id}, #{app}, #{hash}, #{now})")
    int insertToken(
            @Param("id") String id, @Param("app") String app, @Param("hash") String hash, @Param("now") long now);

    @Update("UPDATE hg_app_token SET revoked_at = #{now} WHERE id = #{id} AND app = #{app} AND revoked_at IS NULL")
    int revokeToken(@Param("app") String app, @Param("id") String id, @Param("now") long now);

    @Select("SELECT app FROM hg_app_token WHERE token_hash = #{hash} AND revoked_at IS NULL")
    String appOfToken(@Param("hash") String hash);

    @Select("SELECT app, kind, pattern FROM hg_app_target WHERE app = #{app}")
    List<TargetRow> targetsOf(@Param("app") String app);

    @Select("SELECT app, kind, pattern FROM hg_app_target")
    List<TargetRow> allTargets();

    @Delete("DELETE FROM hg_app_target WHERE app = #{app}")
    int deleteTargets(@Param("app") String app);

    @Insert("INSERT INTO hg_app_target (app, kind, pattern) VALUES (#{app}, #{kind}, #{pattern})")
    int insertTarget(@Param("app") String app, @Param("kind") String kind, @Param("pattern") String pattern);

    @Update("UPDATE hg_app SET alert_webhook = #{url} WHERE name = #{name}")
    int setAlertWebhook(@Param("name") String name, @Param("url") String url);

    @Select("SELECT alert_webhook FROM hg_app WHERE name = #{name}")
    String alertWebhook(@Param("name") String name);

    @Select("SELECT name AS app, alert_webhook AS webhook FROM hg_app WHERE alert_webhook IS NOT NULL")
    List<AppWebhookRow> alertWebhooks();

    @Delete("DELETE FROM hg_app WHERE name = #{name}")
    int deleteApp(@Param("name") String name);
}
