package dev.hourglass.node.store.mybatis;

/** One row of {@code hg_app_target}: one granted pattern of an app. */
public final class TargetRow {
    public String app;
    /** {@link MyBatisAppRepository#KAFKA_TOPIC}, {@link MyBatisAppRepository#DUBBO_GROUP} or {@link MyBatisAppRepository#DUBBO_DEFAULT_GROUP} */
    public String kind;
    /** The pattern; empty for the default group. */
    public String pattern;
}
