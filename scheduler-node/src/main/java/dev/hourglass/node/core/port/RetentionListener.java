package dev.hourglass.node.core.port;

/** Hears what retention deletes, for metrics. Called on the sweep's thread: quick, never throws. */
public interface RetentionListener {
    /** {@code rows} rows of {@code table} were deleted by one batch. */
    void deleted(String table, int rows);

    /** A run ended (completed, stopped by the budget, or by losing mastership or an error). */
    void ran(long nanos);

    RetentionListener NONE = new RetentionListener() {
        @Override
        public void deleted(String table, int rows) {}

        @Override
        public void ran(long nanos) {}
    };
}
