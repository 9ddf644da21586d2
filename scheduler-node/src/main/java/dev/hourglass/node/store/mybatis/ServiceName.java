package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.job.Job;

/** A service as the job tables name it, split from its key ({@code app/service}). */
public record ServiceName(String app, String service) {
    static ServiceName ofKey(String serviceKey) {
        int slash = serviceKey.indexOf('/');
        return new ServiceName(serviceKey.substring(0, slash), serviceKey.substring(slash + 1));
    }

    public String getApp() {
        return app;
    }

    public String getService() {
        return service;
    }

    String key() {
        return Job.serviceKey(app, service);
    }
}
