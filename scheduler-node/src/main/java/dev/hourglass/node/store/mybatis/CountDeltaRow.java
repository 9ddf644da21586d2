package dev.hourglass.node.store.mybatis;

/** One row of {@code hg_live_count_delta}; {@code id} is set only when read back for a fold. */
public class CountDeltaRow {
    public long id;
    public String app;
    public String service;
    public String state;
    public long delta;

    public CountDeltaRow() {}

    CountDeltaRow(String app, String service, String state) {
        this.app = app;
        this.service = service;
        this.state = state;
    }
}
