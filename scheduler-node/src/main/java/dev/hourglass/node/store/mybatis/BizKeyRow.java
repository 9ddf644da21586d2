package dev.hourglass.node.store.mybatis;

/** A bizKey and the job that holds it (table hg_biz_key). */
public class BizKeyRow {
    public String app;
    public String bizKey;
    public long jobId;

    public BizKeyRow() {}

    BizKeyRow(String app, String bizKey, long jobId) {
        this.app = app;
        this.bizKey = bizKey;
        this.jobId = jobId;
    }

    public String getApp() {
        return app;
    }

    public String getBizKey() {
        return bizKey;
    }

    public long getJobId() {
        return jobId;
    }
}
