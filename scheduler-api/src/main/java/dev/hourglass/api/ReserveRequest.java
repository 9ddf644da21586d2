package dev.hourglass.api;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What a pull consumer asks for (docs/api.md, "Pull consumers": {@code POST /api/v1/reserve}): up
 * to {@code max} ready jobs of {@code services}, served in the order given, each held for
 * {@code ttrMs}; with none ready, waiting up to {@code waitMs} for one. Null fields take their
 * defaults (max 1, ttr the job's timeout, no wait).
 */
public class ReserveRequest implements Serializable {
    private static final long serialVersionUID = 1L;

    private List<String> services = new ArrayList<>();
    private Integer max;
    private Long ttrMs;
    private Long waitMs;

    public List<String> getServices() {
        return services;
    }

    public ReserveRequest setServices(List<String> services) {
        this.services = services;
        return this;
    }

    public Integer getMax() {
        return max;
    }

    public ReserveRequest setMax(Integer max) {
        this.max = max;
        return this;
    }

    public Long getTtrMs() {
        return ttrMs;
    }

    public ReserveRequest setTtrMs(Long ttrMs) {
        this.ttrMs = ttrMs;
        return this;
    }

    public Long getWaitMs() {
        return waitMs;
    }

    public ReserveRequest setWaitMs(Long waitMs) {
        this.waitMs = waitMs;
        return this;
    }
}
